package dev.minibatch.runtime.internal.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.FileFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * A truncated gzip stream reports the decompressed offset it really reached; the expected offset is
 * found independently, by reading the same truncated bytes one at a time with the JDK's
 * GZIPInputStream until it throws EOFException.
 */
class GzipContentTest {
  /** 1 MiB of text-like bytes (a small alphabet, so it compresses about 2:1, in many deflate blocks). */
  private static byte[] content() {
    byte[] b = new byte[1 << 20];
    Random r = new Random(26);
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ('a' + r.nextInt(12));
    }
    return b;
  }

  private static byte[] gzip(byte[] content) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(content);
    }
    return out.toByteArray();
  }

  /** How many bytes the JDK decompresses from {@code gz}, one byte per read, before the stream ends early. */
  private static long recoverable(byte[] gz) throws IOException {
    long n = 0;
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
      while (in.read() >= 0) {
        n++;
      }
    } catch (EOFException e) {
      return n;
    }
    throw new AssertionError("the truncated stream read to its end without EOFException");
  }

  @Test
  void aTruncatedStreamReportsTheOffsetActuallyDecompressed() throws IOException {
    byte[] content = content();
    byte[] gz = gzip(content);
    for (int cut : new int[] {gz.length / 3, gz.length / 2, gz.length - 100}) {
      byte[] truncated = Arrays.copyOf(gz, cut);
      long expected = recoverable(truncated);
      assertTrue(expected > 100_000, "the cut leaves a large decompressible prefix: " + expected);
      try (GzipContent c = GzipContent.of("cut.gz", truncated)) {
        FileFormatException e = assertThrows(FileFormatException.class, () -> c.readAll(content.length));
        assertTrue(e.getMessage().contains("truncated at decompressed offset " + expected + " "), "cut at " + cut
            + ": expected offset " + expected + " in: " + e.getMessage());
        assertEquals(expected, c.position());
      }
    }
  }

  @Test
  void aCompleteStreamReadsBackExactlyAndCountsEveryByte() throws IOException {
    byte[] content = content();
    try (GzipContent c = GzipContent.of("whole.gz", gzip(content))) {
      byte[] head = new byte[1000];
      assertEquals(1000, c.read(head, 0, head.length));
      assertEquals(1000, c.position());
      byte[] rest = c.readAll(content.length);
      assertEquals(content.length, c.position());
      assertArrayEquals(Arrays.copyOfRange(content, 0, 1000), head);
      assertArrayEquals(Arrays.copyOfRange(content, 1000, content.length), rest);
    }
  }
}
