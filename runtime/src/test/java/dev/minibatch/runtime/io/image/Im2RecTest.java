package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class Im2RecTest {
  @TempDir Path dir;

  /** Three gray 4x4 PNGs: ant/0.png (value 10), ant/1.png (20), bee/0.png (30). */
  private Path folder() throws IOException {
    Path root = dir.resolve("images");
    Files.createDirectories(root.resolve("ant"));
    Files.createDirectories(root.resolve("bee"));
    Files.write(root.resolve("ant/0.png"), TestImages.png(4, 4, 1, (y, x, c) -> 10 + x));
    Files.write(root.resolve("ant/1.png"), TestImages.png(4, 4, 1, (y, x, c) -> 20 + x));
    Files.write(root.resolve("bee/0.png"), TestImages.png(4, 4, 1, (y, x, c) -> 30 + x));
    return root;
  }

  @Test
  void packsAFolderLosslesslyAndTheProviderReadsItBack() throws IOException {
    Im2Rec.Result r = Im2Rec.builder().folder(folder()).output(dir.resolve("out/train")).encoding(".png").color(0)
        .threads(2).build().run();
    assertEquals(3, r.images());
    assertEquals(List.of("ant", "bee"), r.classes());
    assertEquals("0\t0.000000\tant/0.png\n1\t0.000000\tant/1.png\n2\t1.000000\tbee/0.png\n",
        Files.readString(r.lst()));
    try (RecordIOFile rec = RecordIOFile.open(r.rec(), r.idx())) {
      assertEquals(3, rec.records());
      assertEquals(2, ImageRecord.parse(rec.read(2, null)).id());
      assertEquals(Files.size(r.rec()), r.bytes());
    }
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(r.rec()).batchSize(3).dataShape(1, 4, 4)
        .build()) {
      NamedBatch b = p.iterator().next();
      for (int i = 0; i < 3; i++) {
        float[] row = b.data().get(0).slice(i).dup().data().asFloat();
        for (int k = 0; k < 16; k++) {
          assertEquals(10 * (i + 1) + k % 4, row[k], "image " + i + " value " + k);
        }
      }
      assertArrayEquals(new float[] {0, 0, 1}, b.label().get(0).dup().data().asFloat());
    }
  }

  @Test
  void packsAListWithItsLabelsAndResizes() throws IOException {
    Path root = folder();
    Path lst = dir.resolve("in.lst");
    new ImageList(List.of(new ImageList.Entry(7, new float[] {1, 2}, "bee/0.png"),
        new ImageList.Entry(3, new float[] {4, 5}, "ant/1.png"))).write(lst);
    Im2Rec.Result r = Im2Rec.builder().list(lst, root).output(dir.resolve("listed")).encoding(".png").packLabel(true)
        .resize(2).color(0).build().run();
    try (RecordIOFile rec = RecordIOFile.open(r.rec(), r.idx())) {
      assertEquals(7, rec.key(0));
      assertEquals(3, rec.key(1));
      ImageRecord first = ImageRecord.parse(rec.read(0, null));
      assertEquals(7, first.id());
      assertArrayEquals(new float[] {1, 2}, first.labels());
    }
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(r.rec()).batchSize(2).dataShape(1, 2, 2)
        .labelWidth(2).build()) {
      assertArrayEquals(new long[] {2, 1, 2, 2}, p.iterator().next().data().get(0).shape());
    }
  }

  @Test
  void anUnreadableImageIsAnErrorNamingIt() throws IOException {
    Path root = folder();
    Files.write(root.resolve("bee/1.png"), new byte[] {1, 2, 3});
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> Im2Rec.builder().folder(root).output(dir.resolve("bad")).build().run());
    assertEquals(root.resolve("bee/1.png") + ": OpenCV cannot decode this image (3 bytes)", e.getMessage());
  }
}
