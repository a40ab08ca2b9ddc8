package dev.minibatch.runtime.io.recordio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import dev.minibatch.runtime.spi.RangedFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record file read through a {@link RangedFile} (what a remote file is) gives the payloads that were
 * written, with and without an index, and the walk reads it in pieces rather than one range per part
 * header: records whose headers straddle the pieces' ends, records split at the magic word, and a
 * corrupt stretch skipped as it is in a local file.
 */
class RangedRecordIOFileTest {
  @TempDir Path dir;

  /** 240 payloads of 3-30 KB (about 4 MB: four walk pieces), every 7th holding the magic word twice. */
  private static List<byte[]> payloads() {
    SplittableRandom r = new SplittableRandom(3);
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < 240; i++) {
      byte[] p = new byte[3000 + r.nextInt(27000)];
      r.nextBytes(p);
      if (i % 7 == 0) {
        ByteBuffer.wrap(p).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(400, 0xCED7230A).putInt(1200, 0xCED7230A);
      }
      out.add(p);
    }
    return out;
  }

  @Test
  void readsWhatWasWrittenWithAndWithoutIndex() throws IOException {
    List<byte[]> payloads = payloads();
    Path rec = dir.resolve("a.rec");
    Path idx = dir.resolve("a.idx");
    try (RecordIOWriter w = RecordIOWriter.create(rec, idx)) {
      for (int i = 0; i < payloads.size(); i++) {
        w.write(1000 + i, payloads.get(i));
      }
    }
    byte[] file = Files.readAllBytes(rec);
    assertTrue(file.length > 3 * RecordIOFile.WALK_PIECE, "the walk crosses pieces: " + file.length);
    InMemory walked = new InMemory("mem://a.rec", file);
    try (RecordIOFile f = RecordIOFile.builder(walked).open()) {
      // Four or five pieces, not one range per header.
      assertTrue(walked.reads.get() <= file.length / RecordIOFile.WALK_PIECE + 1, "reads " + walked.reads);
      assertEquals(payloads.size(), f.records());
      assertEquals("mem://a.rec", f.location());
      ByteBuffer b = null;
      for (int i = 0; i < payloads.size(); i++) {
        b = f.read(i, b);
        assertArrayEquals(payloads.get(i), bytes(b), "record " + i);
      }
      assertThrows(IllegalStateException.class, f::path);
    }
    assertTrue(walked.closed, "closing the record file closes its ranged file");
    InMemory indexed = new InMemory("mem://a.rec", file);
    InMemory index = new InMemory("mem://a.idx", Files.readAllBytes(idx));
    try (RecordIOFile f = RecordIOFile.builder(indexed).rangedIndex(index).open()) {
      assertTrue(index.closed, "the index is closed once read");
      assertEquals(0, indexed.reads.get(), "the index finds the records without reading the file");
      for (int i = payloads.size() - 1; i >= 0; i -= 5) {
        assertEquals(1000 + i, f.key(i));
        assertArrayEquals(payloads.get(i), bytes(f.read(i, null)), "record " + i);
      }
    }
  }

  @Test
  void skipsACorruptStretchAsLocally() throws IOException {
    List<byte[]> payloads = payloads();
    Path rec = dir.resolve("b.rec");
    long[] offsets = new long[payloads.size()];
    try (RecordIOWriter w = RecordIOWriter.create(rec)) {
      for (int i = 0; i < payloads.size(); i++) {
        offsets[i] = w.write(payloads.get(i));
      }
    }
    byte[] file = Files.readAllBytes(rec);
    // Record 150's magic word overwritten: it is lost, the rest kept.
    file[(int) offsets[150]] = 0x55;
    Files.write(rec, file);
    List<String> local = new ArrayList<>();
    List<String> ranged = new ArrayList<>();
    int records;
    try (RecordIOFile f = RecordIOFile.builder(rec).skipCorrupt(true).problems(p -> local.add(p.offset() + ":"
        + p.skippedBytes())).open()) {
      records = f.records();
    }
    try (RecordIOFile f = RecordIOFile.builder(new InMemory("mem://b.rec", file)).skipCorrupt(true)
        .problems(p -> ranged.add(p.offset() + ":" + p.skippedBytes())).open()) {
      assertEquals(payloads.size() - 1, f.records());
      assertEquals(records, f.records());
      assertArrayEquals(payloads.get(151), bytes(f.read(150, null)));
    }
    assertEquals(List.of(offsets[150] + ":" + (offsets[151] - offsets[150])), ranged);
    assertEquals(local, ranged);
    FileFormatException strict = assertThrows(FileFormatException.class,
        () -> RecordIOFile.builder(new InMemory("mem://b.rec", file)).open());
    assertTrue(strict.getMessage().contains("mem://b.rec") && strict.getMessage().contains("offset " + offsets[150]),
        strict.getMessage());
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  /** A file in memory read by ranges, counting the reads. */
  private static final class InMemory implements RangedFile {
    private final String location;
    private final byte[] bytes;
    final AtomicInteger reads = new AtomicInteger();
    volatile boolean closed;

    InMemory(String location, byte[] bytes) {
      this.location = location;
      this.bytes = bytes;
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public long size() {
      return bytes.length;
    }

    @Override
    public void read(long position, ByteBuffer dst) {
      reads.incrementAndGet();
      dst.put(bytes, (int) position, dst.remaining());
    }

    @Override
    public void close() {
      closed = true;
    }
  }

}
