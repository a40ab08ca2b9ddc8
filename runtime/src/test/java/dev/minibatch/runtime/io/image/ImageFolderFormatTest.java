package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.Settings;
import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.shape.Shape;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The image-folder {@link Format} on a folder of PNGs written here: 2 cats, 2 dogs, one broken file. */
class ImageFolderFormatTest {
  private static final Format FOLDER = ImageRecordProvider.folderFormat();

  private static Path folder(Path dir, boolean broken) throws IOException {
    Path root = dir.resolve("pets");
    Files.createDirectories(root.resolve("cat"));
    Files.createDirectories(root.resolve("dog"));
    Files.write(root.resolve("cat/a.png"), TestImages.png(6, 8, 3, (y, x, c) -> 10 * c));
    Files.write(root.resolve("cat/b.png"), TestImages.png(6, 8, 3, (y, x, c) -> 20 + c));
    Files.write(root.resolve("dog/c.png"), TestImages.png(6, 8, 3, (y, x, c) -> 200));
    Files.write(root.resolve("dog/notes.txt"), "not an image: ignored".getBytes(StandardCharsets.UTF_8));
    if (broken) {
      Files.write(root.resolve("dog/d.jpg"), "these bytes are not a JPEG".getBytes(StandardCharsets.UTF_8));
    } else {
      Files.write(root.resolve("dog/d.png"), TestImages.png(6, 8, 3, (y, x, c) -> 255));
    }
    return root;
  }

  @Test
  void probeTakesAFolderOfClassFoldersOnly(@TempDir Path dir) throws IOException {
    Path root = folder(dir, false);
    assertTrue(FOLDER.probe(root, Format.head(root)));
    assertFalse(FOLDER.probe(root.resolve("cat"), Format.head(root.resolve("cat"))), "a class folder has no class folders");
    assertFalse(FOLDER.probe(root.resolve("cat/a.png"), Format.head(root.resolve("cat/a.png"))));
    assertEquals(0, Format.head(root).length);
  }

  @Test
  void describeCountsImagesPerClassInSortedOrder(@TempDir Path dir) throws IOException {
    Format.Report r = FOLDER.describe(folder(dir, false), Format.Options.defaults());
    assertEquals("4", r.field("images"));
    java.io.StringWriter out = new java.io.StringWriter();
    r.print(new java.io.PrintWriter(out));
    assertTrue(out.toString().contains("cat 2  50.0%"), out.toString());
    assertTrue(out.toString().contains("dog 2  50.0%"), out.toString());
    assertTrue(out.toString().contains("#0: label 0, cat/a.png"), out.toString());
  }

  @Test
  void validateNamesEachImageThatDoesNotDecode(@TempDir Path dir) throws IOException {
    Path root = folder(dir, true);
    Format.Problems problems = new Format.Problems(10);
    FOLDER.validate(root, Format.Options.defaults(), problems);
    assertEquals(1, problems.list().size(), problems.list().toString());
    assertEquals(root.resolve("dog/d.jpg").toString(), problems.list().get(0).location());

    Format.Problems empty = new Format.Problems(10);
    Files.createDirectories(root.resolve("emu"));
    FOLDER.validate(root, Format.Options.defaults(), empty);
    assertTrue(empty.list().get(0).message().contains("'emu' holds no image files"), empty.list().toString());
    assertThrows(FileFormatException.class, () -> FOLDER.describe(root, Format.Options.defaults()));
  }

  @Test
  void providerReadsEveryImageAtTheFirstImagesSize(@TempDir Path dir) throws IOException {
    Path root = folder(dir, false);
    Format.Options o = Format.Options.builder().settings(Settings.builder().batchSize(2).build()).build();
    List<DataDesc> schema = FOLDER.schema(root, o);
    assertEquals(Shape.of(2, 3, 6, 8), schema.get(0).shape());
    int samples = 0;
    double labels = 0;
    try (BatchProvider<? extends Batch> p = FOLDER.provider(root, o)) {
      for (Batch b : p) {
        samples += b.countSamples();
        labels += b.label().get(0).sumNumber().doubleValue();
      }
    }
    assertEquals(4, samples);
    assertEquals(2, labels, "labels 0, 0, 1, 1");
  }
}
