package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.TestFiles;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;

/**
 * What {@code build()} says about files that are well framed but cannot be read as given: no
 * records, a list or index that is not UTF-8, a label count that is not the label width, fewer
 * records than a batch under round_batch. Each message is written out in full from the file's
 * known content (dmlc's {@code sample.rec}: 10 records of ids 1..10 with one header label each;
 * the others made here).
 */
class ImageRecordBadInputTest {
  @TempDir Path dir;

  private static final Path SAMPLE = TestFiles.resource("recordio/sample.rec");

  private static ImageRecordProvider.Builder builder(Path rec) {
    return ImageRecordProvider.builder().pathImgrec(rec).dataShape(3, 4, 4);
  }

  private static FileFormatException fails(Executable build) {
    return assertThrows(FileFormatException.class, build);
  }

  /** Records 0..n-1 with ids 0..n-1, record i packing {@code widths[i]} labels 10 i, 10 i + 1, ... (0: header label i). */
  private Path packed(String name, int... widths) {
    byte[] png = TestImages.png(4, 4, 3, (y, x, c) -> y + x + c);
    List<ImageRecord> records = new ArrayList<>();
    for (int i = 0; i < widths.length; i++) {
      float[] labels = new float[widths[i]];
      for (int k = 0; k < labels.length; k++) {
        labels[k] = 10 * i + k;
      }
      records.add(widths[i] == 0 ? ImageRecord.of(i, i, png) : ImageRecord.of(i, labels, png));
    }
    return TestImages.write(dir.resolve(name), records);
  }

  @Test
  void anEmptyRecordFileNamesItself() throws IOException {
    Path rec = Files.write(dir.resolve("empty.rec"), new byte[0]);
    FileFormatException e = fails(() -> builder(rec).batchSize(1).build());
    assertEquals(rec.toString(), e.file());
    assertEquals(rec + ": is empty (0 bytes); expected RecordIO image records", e.getMessage());
  }

  @Test
  void anIndexWithoutLinesNamesTheIndexNotTheRecordFile() throws IOException {
    // sample.rec is 532 bytes (SOURCES.md); an index of blank lines lists none of its records.
    Path idx = Files.writeString(dir.resolve("sample.idx"), "\n\n");
    FileFormatException e = fails(() -> builder(SAMPLE).pathImgidx(idx).batchSize(1).build());
    assertEquals(idx.toString(), e.file());
    assertEquals(idx + ": lists no records: it has no key<TAB>offset line; expected one line per record of " + SAMPLE
        + " (532 bytes)", e.getMessage());
    // The CLI's format finds train.idx beside train.rec and says the same.
    Path rec = Files.copy(SAMPLE, dir.resolve("sample.rec"));
    e = fails(() -> ImageRecordProvider.format().provider(rec, Format.Options.defaults()));
    assertEquals(idx.toString(), e.file());
  }

  @Test
  void aFileWhoseEveryByteWasSkippedAsCorruptNamesTheFirstProblem() throws IOException {
    // 16 bytes of 0x01: no magic word anywhere, so skipCorrupt skips from offset 0 to the end.
    byte[] junk = new byte[16];
    java.util.Arrays.fill(junk, (byte) 1);
    Path rec = Files.write(dir.resolve("junk.rec"), junk);
    FileFormatException e = fails(() -> builder(rec).batchSize(1).skipCorrupt(true, p -> {}).build());
    assertEquals(rec + ": holds no intact record: skipCorrupt skipped 1 corrupt stretch (16 of 16 bytes); the first, "
        + "at offset 0: expected the magic word 0xCED7230A at offset 0, found 0x01010101", e.getMessage());
  }

  @Test
  void aListWithoutLinesNamesTheList() throws IOException {
    Path rec = packed("two.rec", 0, 0);
    Path lst = Files.writeString(dir.resolve("two.lst"), "\n");
    FileFormatException e = fails(() -> builder(rec).pathImglist(lst).batchSize(1).build());
    assertEquals(lst + ": lists no images; expected an 'index<TAB>label...<TAB>path' line for each image id of " + rec,
        e.getMessage());
  }

  @Test
  void aListOrIndexThatIsNotUtf8IsAFormatErrorAtBuild() throws IOException {
    Path rec = packed("u.rec", 0, 0);
    Path lst = Files.write(dir.resolve("u.lst"), new byte[] {'0', '\t', '1', '\t', (byte) 0xFF, '\n'});
    FileFormatException e = fails(() -> builder(rec).pathImglist(lst).batchSize(1).build());
    assertEquals(lst + ": line 1 (byte offset 4): byte 0xFF is not UTF-8 text; expected "
        + "'index<TAB>label...<TAB>path' lines", e.getMessage());
    Path idx = Files.write(dir.resolve("bad.idx"), new byte[] {(byte) 0x80, '\t', '0', '\n'});
    e = fails(() -> builder(rec).pathImgidx(idx).batchSize(1).build());
    assertEquals(idx + ": line 1 (byte offset 0): byte 0x80 is not UTF-8 text; expected key<TAB>offset lines",
        e.getMessage());
  }

  @Test
  void packedLabelsReadWithTheDefaultWidthFailAtBuildNamingTheWidthThatFits() {
    // MXNet's detection layout: 9 labels packed after the header, as in im2rec --pack-label.
    Path rec = packed("nine.rec", 9, 9, 9);
    FileFormatException e = fails(() -> builder(rec).batchSize(3).build());
    assertEquals(rec.toString(), e.file());
    assertEquals(rec + ": record 0 at offset 0 (image id 0): the record packs 9 labels but labelWidth is 1; set "
        + "labelWidth(9) to read them, or give pathImglist with 1 label per image", e.getMessage());
    try (ImageRecordProvider p = builder(rec).batchSize(3).labelWidth(9).build()) {
      NamedBatch b = p.iterator().next();
      assertArrayEquals(new float[] {20, 21, 22, 23, 24, 25, 26, 27, 28},
          b.label().get(0).slice(2).dup().data().asFloat());
    }
  }

  @Test
  void aHeaderLabelReadWithAWiderWidthFailsAtBuild() {
    FileFormatException e = fails(() -> builder(SAMPLE).batchSize(1).labelWidth(3).build());
    assertEquals(SAMPLE + ": record 0 at offset 0 (image id 1): the record holds one label in its header but "
        + "labelWidth is 3; set labelWidth(1) to read it, or give pathImglist with 3 labels per image", e.getMessage());
  }

  @Test
  void aLaterRecordWithAnotherLabelCountIsStillAnErrorWhenRead() {
    // Record 0 decides the width at build; record 1 disagrees and fails only when it is read.
    Path rec = packed("mixed.rec", 9, 4);
    try (ImageRecordProvider p = builder(rec).batchSize(2).labelWidth(9).preprocessThreads(1).build()) {
      StageFailedException e = assertThrows(StageFailedException.class, () -> p.iterator().next());
      FileFormatException cause = assertInstanceOf(FileFormatException.class, e.getCause());
      long offset = 8 + ((24 + 4 * 9 + TestImages.png(4, 4, 3, (y, x, c) -> y + x + c).length + 3) & ~3);
      assertEquals(rec + ": record 1 at offset " + offset + " (image id 1): the record packs 4 labels but labelWidth "
          + "is 9", cause.getMessage());
    }
  }

  @Test
  void aListsFirstLineDecidesTheWidthAtBuild() throws IOException {
    Path rec = packed("l.rec", 0, 0);
    Path lst = Files.writeString(dir.resolve("l.lst"), "0\t1\t2\ta.png\n1\t3\t4\tb.png\n");
    FileFormatException e = fails(() -> builder(rec).pathImglist(lst).batchSize(2).build());
    assertEquals(lst + ": line 1 (image index 0): 2 labels but labelWidth is 1; set labelWidth(2) to read them",
        e.getMessage());
    try (ImageRecordProvider p = builder(rec).pathImglist(lst).labelWidth(2).batchSize(2).build()) {
      assertArrayEquals(new float[] {1, 2, 3, 4}, p.iterator().next().label().get(0).dup().data().asFloat());
    }
  }

  @Test
  void fewerRecordsThanABatchUnderRoundBatchSaysWhatToSet() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builder(SAMPLE).batchSize(16)
        .build());
    assertEquals("ImageRecordProvider: " + SAMPLE + " holds 10 records, fewer than batchSize 16; roundBatch(true), the "
        + "default (LastBatch.PAD_CONTINUE), fills the last batch from the next epoch and needs a full batch per part: "
        + "set batchSize(10) or less, or roundBatch(false) to pad the last batch instead (or another lastBatch policy)",
        e.getMessage());
    // Part 0 of 3 is records [0, floor(10/3)) = 3 records; part 2 is [6, 10) = 4.
    e = assertThrows(IllegalArgumentException.class, () -> builder(SAMPLE).batchSize(4).numParts(3, 0).build());
    assertEquals("ImageRecordProvider: " + SAMPLE + " holds 10 records, 3 of them in part 0 of 3, fewer than batchSize "
        + "4; roundBatch(true), the default (LastBatch.PAD_CONTINUE), fills the last batch from the next epoch and "
        + "needs a full batch per part: set batchSize(3) or less, or roundBatch(false) to pad the last batch instead (or "
        + "another lastBatch policy)", e.getMessage());
    builder(SAMPLE).batchSize(4).numParts(3, 2).build().close();
    builder(SAMPLE).batchSize(16).roundBatch(false).build().close();
    builder(SAMPLE).batchSize(16).lastBatch(LastBatch.PARTIAL).build().close();
    e = assertThrows(IllegalArgumentException.class, () -> builder(SAMPLE).batchSize(1).numParts(11, 0).build());
    assertEquals("ImageRecordProvider: " + SAMPLE + " holds 10 records, none of them in part 0 of 11; use at most 10 "
        + "parts, or evenShards(true)", e.getMessage());
  }

  @Test
  void anImageFolderWithoutClassFoldersOrWithTooFewImagesNamesTheFolder() throws IOException {
    Path root = Files.createDirectories(dir.resolve("photos"));
    FileFormatException e = fails(() -> ImageRecordProvider.builder().imageFolder(root).dataShape(1, 4, 4).batchSize(1)
        .build());
    assertEquals(root.toString(), e.file());
    assertEquals(root + ": the image folder has no class sub-folders; expected " + root + "/<class>/<image files>",
        e.getMessage());
    Files.createDirectories(root.resolve("cat"));
    Files.write(root.resolve("cat/a.png"), TestImages.png(4, 4, 1, (y, x, c) -> 1));
    IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
        () -> ImageRecordProvider.builder().imageFolder(root).dataShape(1, 4, 4).batchSize(2).build());
    assertEquals("ImageRecordProvider: " + root + " holds 1 image, fewer than batchSize 2; roundBatch(true), the "
        + "default (LastBatch.PAD_CONTINUE), fills the last batch from the next epoch and needs a full batch per part: "
        + "set batchSize(1) or less, or roundBatch(false) to pad the last batch instead (or another lastBatch policy)",
        small.getMessage());
  }
}
