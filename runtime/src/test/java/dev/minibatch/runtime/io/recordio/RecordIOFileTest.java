package dev.minibatch.runtime.io.recordio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.TestFiles;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordProblem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordIOFileTest {
  @TempDir Path dir;

  /** The magic word as it lies in the file (little-endian 0xCED7230A). */
  private static final byte[] MAGIC = {0x0A, 0x23, (byte) 0xD7, (byte) 0xCE};

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    ByteBuffer b = ByteBuffer.allocate(n);
    for (byte[] p : parts) {
      b.put(p);
    }
    return b.array();
  }

  /** A part header: magic, then lrecord = flag << 29 | length, little-endian. */
  private static byte[] header(int flag, int length) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(0xCED7230A).putInt(flag << 29 | length).array();
  }

  private Path file(String name, byte[] content) throws IOException {
    return Files.write(dir.resolve(name), content);
  }

  @Test
  void readsDmlcSampleFile() {
    // dmlc-core's test/sample.rec: records k = 1..10, each an IRHeader (flag 0, label k % 2, id k,
    // id2 0) followed by the text "k\n" ten times (SOURCES.md).
    try (RecordIOFile rec = RecordIOFile.open(TestFiles.resource("recordio/sample.rec"))) {
      assertEquals(10, rec.records());
      assertEquals(0, rec.offset(0));
      assertEquals(52, rec.offset(1), "8-byte part header + 24-byte IRHeader + 20 bytes of text");
      ByteBuffer buffer = null;
      for (int k = 1; k <= 10; k++) {
        buffer = rec.read(k - 1, buffer);
        ImageRecord r = ImageRecord.parse(buffer);
        assertEquals(k, r.id());
        assertEquals(0, r.id2());
        assertEquals(k % 2, r.label());
        assertEquals(0, r.flag());
        assertEquals((k + "\n").repeat(10), new String(r.image(), StandardCharsets.US_ASCII));
      }
      assertTrue(rec.problems().isEmpty());
    }
  }

  @Test
  void writerSplitsAtAlignedMagicAndReaderJoins() throws IOException {
    byte[] payload = concat(new byte[] {1, 2, 3, 4}, MAGIC, new byte[] {5, 6});
    Path p = dir.resolve("split.rec");
    try (RecordIOWriter w = RecordIOWriter.create(p)) {
      assertEquals(0, w.write(payload));
      assertEquals(1, w.records());
    }
    // By hand: a first part of 4 bytes, then a last part of 2 bytes padded to 4; the magic word
    // inside the payload is not written.
    byte[] expected = concat(header(1, 4), new byte[] {1, 2, 3, 4}, header(3, 2), new byte[] {5, 6, 0, 0});
    assertArrayEquals(expected, Files.readAllBytes(p));
    try (RecordIOFile rec = RecordIOFile.open(p)) {
      assertEquals(1, rec.records());
      assertArrayEquals(payload, bytes(rec.read(0, null)));
    }
  }

  @Test
  void unalignedMagicIsNotSplit() throws IOException {
    byte[] payload = concat(new byte[] {9}, MAGIC, new byte[] {7});
    Path p = dir.resolve("unaligned.rec");
    try (RecordIOWriter w = RecordIOWriter.create(p)) {
      w.write(payload);
    }
    assertArrayEquals(concat(header(0, 6), payload, new byte[] {0, 0}), Files.readAllBytes(p));
  }

  @Test
  void payloadOfOnlyMagicWordsRoundTrips() throws IOException {
    byte[] payload = concat(MAGIC, MAGIC);
    Path p = dir.resolve("magic.rec");
    try (RecordIOWriter w = RecordIOWriter.create(p)) {
      w.write(payload);
      w.write(new byte[0]);
    }
    // first (0 bytes), middle (0 bytes), last (0 bytes), then an empty whole record.
    assertArrayEquals(concat(header(1, 0), header(2, 0), header(3, 0), header(0, 0)), Files.readAllBytes(p));
    try (RecordIOFile rec = RecordIOFile.open(p)) {
      assertEquals(2, rec.records());
      assertArrayEquals(payload, bytes(rec.read(0, null)));
      assertEquals(0, rec.read(1, null).remaining());
    }
  }

  @Test
  void indexRoundTripAndKeys() throws IOException {
    Path p = dir.resolve("keyed.rec");
    Path idx = dir.resolve("keyed.idx");
    List<byte[]> payloads = new ArrayList<>();
    try (RecordIOWriter w = RecordIOWriter.create(p, idx)) {
      for (int i = 0; i < 5; i++) {
        byte[] b = new byte[3 + 5 * i];
        b[0] = (byte) i;
        payloads.add(b);
        w.write(100 + i, b);
      }
    }
    // Offsets by hand: each record is 8 + its length rounded up to 4: 3→4, 8, 13→16, 18→20, 23→24.
    assertEquals("100\t0\n101\t12\n102\t28\n103\t52\n104\t80\n", Files.readString(idx));
    try (RecordIOFile byIndex = RecordIOFile.open(p, idx); RecordIOFile walked = RecordIOFile.open(p)) {
      assertEquals(5, byIndex.records());
      for (int i = 0; i < 5; i++) {
        assertEquals(walked.offset(i), byIndex.offset(i));
        assertEquals(100 + i, byIndex.key(i));
        assertEquals(i, walked.key(i));
        assertEquals(i, byIndex.recordOf(100 + i));
        assertArrayEquals(payloads.get(i), bytes(byIndex.read(i, null)));
      }
      assertEquals(-1, byIndex.recordOf(7));
    }
  }

  @Test
  void bufferIsReusedWhenLargeEnoughAndGrownOtherwise() throws IOException {
    Path p = dir.resolve("sizes.rec");
    try (RecordIOWriter w = RecordIOWriter.create(p)) {
      w.write(new byte[10]);
      w.write(new byte[10_000]);
    }
    try (RecordIOFile rec = RecordIOFile.open(p)) {
      ByteBuffer small = ByteBuffer.allocateDirect(64);
      assertTrue(rec.read(0, small) == small);
      ByteBuffer grown = rec.read(1, small);
      assertEquals(10_000, grown.remaining());
      assertTrue(rec.read(0, grown) == grown);
    }
  }

  private static String openError(Path p) {
    return assertThrows(FileFormatException.class, () -> RecordIOFile.open(p).close()).getMessage();
  }

  @Test
  void badMagicNamesFileRecordAndOffset() throws IOException {
    byte[] good = concat(header(0, 4), new byte[] {1, 2, 3, 4});
    byte[] bad = concat(good, new byte[] {1, 2, 3, 4, 0, 0, 0, 0});
    Path p = file("badmagic.rec", bad);
    String m = openError(p);
    assertTrue(m.startsWith(p + ": record 1 at offset 12:"), m);
    assertTrue(m.contains("expected the magic word 0xCED7230A at offset 12, found 0x04030201"), m);
  }

  @Test
  void truncatedPartIsAnError() throws IOException {
    Path p = file("truncated.rec", concat(header(0, 100), new byte[40]));
    String m = openError(p);
    assertTrue(m.contains("record 0 at offset 0"), m);
    assertTrue(m.contains("declares 100 payload bytes but the file ends 40 bytes after its header"), m);
  }

  @Test
  void recordThatNeverClosesIsAnError() throws IOException {
    Path p = file("open.rec", concat(header(1, 4), new byte[4], header(2, 4), new byte[4]));
    String m = openError(p);
    assertTrue(m.contains("record 0 at offset 0"), m);
    assertTrue(m.contains("the file ends inside the record started at offset 0 (no part with flag 3)"), m);
  }

  @Test
  void newRecordInsideASplitOneIsAnError() throws IOException {
    Path p = file("interrupted.rec", concat(header(1, 4), new byte[4], header(0, 4), new byte[4]));
    String m = openError(p);
    assertTrue(m.contains("the record started at offset 0 is not closed: the part at offset 12 has flag 0 (whole record)"),
        m);
  }

  @Test
  void continuationWithoutStartIsAnError() throws IOException {
    Path p = file("orphan.rec", concat(header(3, 4), new byte[4]));
    String m = openError(p);
    assertTrue(m.contains("part at offset 0 has flag 3 (last part) where a record must start"), m);
  }

  @Test
  void trailingBytesAreAnError() throws IOException {
    Path p = file("tail.rec", concat(header(0, 4), new byte[4], new byte[] {1, 2}));
    String m = openError(p);
    assertTrue(m.contains("record 1 at offset 12: the file ends 2 bytes after the last part"), m);
  }

  @Test
  void skipCorruptResynchronisesAtTheNextRecordAndReportsWhatItSkipped() throws IOException {
    byte[] r0 = concat(header(0, 4), new byte[] {1, 1, 1, 1});
    byte[] garbage = {9, 9, 9, 9, 9, 9, 9, 9};
    byte[] r1 = concat(header(0, 4), new byte[] {2, 2, 2, 2});
    // A split record whose last part is missing, followed by a good one.
    byte[] broken = concat(header(1, 4), new byte[] {3, 3, 3, 3});
    byte[] r2 = concat(header(0, 4), new byte[] {4, 4, 4, 4});
    Path p = file("corrupt.rec", concat(r0, garbage, r1, broken, r2));
    assertTrue(openError(p).contains("record 1 at offset 12"));
    List<RecordProblem> seen = new ArrayList<>();
    try (RecordIOFile rec = RecordIOFile.builder(p).skipCorrupt(true).problems(seen::add).open()) {
      assertEquals(3, rec.records());
      assertArrayEquals(new byte[] {1, 1, 1, 1}, bytes(rec.read(0, null)));
      assertArrayEquals(new byte[] {2, 2, 2, 2}, bytes(rec.read(1, null)));
      assertArrayEquals(new byte[] {4, 4, 4, 4}, bytes(rec.read(2, null)));
      assertEquals(seen, rec.problems());
      assertEquals(2, seen.size());
      // The garbage: 8 bytes at offset 12, before record 1.
      assertEquals(new RecordProblem(p.toString(), 1, 12, 8, seen.get(0).message()), seen.get(0));
      // The unclosed record at offset 32 (12 bytes), before record 2.
      assertEquals(2, seen.get(1).record());
      assertEquals(32, seen.get(1).offset());
      assertEquals(12, seen.get(1).skippedBytes());
    }
  }

  @Test
  void indexErrorsNameTheLine() throws IOException {
    Path p = dir.resolve("i.rec");
    try (RecordIOWriter w = RecordIOWriter.create(p)) {
      w.write(new byte[4]);
      w.write(new byte[4]);
    }
    String m = assertThrows(FileFormatException.class,
        () -> RecordIOFile.open(p, file("a.idx", "0\t0\n1\tx\n".getBytes(StandardCharsets.US_ASCII)))).getMessage();
    assertTrue(m.contains("a.idx: line 2: key and offset must be integers"), m);
    m = assertThrows(FileFormatException.class,
        () -> RecordIOFile.open(p, file("b.idx", "0\t0\n0\t12\n".getBytes(StandardCharsets.US_ASCII)))).getMessage();
    assertTrue(m.contains("b.idx: line 2: key 0 was already on line 1"), m);
    m = assertThrows(FileFormatException.class,
        () -> RecordIOFile.open(p, file("c.idx", "0\t2400\n".getBytes(StandardCharsets.US_ASCII)))).getMessage();
    assertTrue(m.contains("c.idx: line 1: offset 2400 of key 0 is not a 4-aligned part start"), m);
    // An offset inside a payload is found when the record is read.
    try (RecordIOFile rec = RecordIOFile.open(p, file("d.idx", "5\t8\n".getBytes(StandardCharsets.US_ASCII)))) {
      m = assertThrows(FileFormatException.class, () -> rec.read(0, null)).getMessage();
      assertTrue(m.contains("record 0 at offset 8: expected the magic word 0xCED7230A at offset 8, found 0x00000000"),
          m);
    }
  }

  @Test
  void anIndexThatIsNotUtf8NamesTheIndexLineAndByte() throws IOException {
    Path p = dir.resolve("u.rec");
    try (RecordIOWriter w = RecordIOWriter.create(p)) {
      w.write(new byte[4]);
      w.write(new byte[4]);
    }
    // "0\t0\n" is 4 bytes; line 2 is "1\t" and then 0xFF, a byte UTF-8 never uses, at offset 6.
    Path bad = file("u.idx", new byte[] {'0', '\t', '0', '\n', '1', '\t', (byte) 0xFF, '\n'});
    FileFormatException e = assertThrows(FileFormatException.class, () -> RecordIOFile.open(p, bad));
    assertEquals(bad.toString(), e.file());
    assertEquals(bad + ": line 2 (byte offset 6): byte 0xFF is not UTF-8 text; expected key<TAB>offset lines",
        e.getMessage());
    // CRLF line ends count once; a lead byte cut off by the end of the file is not UTF-8 either.
    Path cut = file("v.idx", new byte[] {'0', '\t', '0', '\r', '\n', '1', '\t', '1', '2', '\r', '\n', (byte) 0xC3});
    assertEquals(cut + ": line 3 (byte offset 11): byte 0xC3 is not UTF-8 text; expected key<TAB>offset lines",
        assertThrows(FileFormatException.class, () -> RecordIOFile.open(p, cut)).getMessage());
    // A lone CR ends a line too (as in Files.readAllLines).
    Path cr = file("w.idx", new byte[] {'0', '\t', '0', '\r', '1', '\t', (byte) 0xE2, (byte) 0x82});
    assertEquals(cr + ": line 2 (byte offset 6): bytes 0xE2 0x82 are not UTF-8 text; expected key<TAB>offset lines",
        assertThrows(FileFormatException.class, () -> RecordIOFile.open(p, cr)).getMessage());
  }

  @Test
  void payloadTooLargeForTheLengthField() {
    try (RecordIOWriter w = RecordIOWriter.create(dir.resolve("big.rec"))) {
      ByteBuffer huge = ByteBuffer.allocate(1 << 29);
      assertThrows(IllegalArgumentException.class, () -> w.write(huge));
    }
  }

  @Test
  void imageRecordPacksAsMxnet() {
    // MXNet: pack(IRHeader(0, [1, 2], 7, 0), s) sets flag = 2 and label = 0, labels after the header.
    byte[] img = {(byte) 0x89, 'P', 'N', 'G'};
    byte[] packed = ImageRecord.of(7, new float[] {1, 2}, img).encode();
    ByteBuffer b = ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(2, b.getInt(0));
    assertEquals(0f, b.getFloat(4));
    assertEquals(7L, b.getLong(8));
    assertEquals(0L, b.getLong(16));
    assertEquals(1f, b.getFloat(24));
    assertEquals(2f, b.getFloat(28));
    assertEquals(32, ImageRecord.imageOffset(b));
    assertEquals(ImageRecord.of(7, new float[] {1, 2}, img), ImageRecord.parse(b));
    assertArrayEquals(new float[] {3}, ImageRecord.of(1, 3f, img).labelVector());
  }

  @Test
  void imageRecordWithMoreLabelsThanBytes() {
    ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 9).putLong(8, 42);
    String m = assertThrows(FileFormatException.class, () -> ImageRecord.check(b, "x.rec", 3, 96)).getMessage();
    assertEquals("x.rec: record 3 at offset 96 (image id 42): the header's flag 9 announces 9 labels (36 bytes) but "
        + "the record has 16 bytes after its header, and an image must follow", m);
  }
}
