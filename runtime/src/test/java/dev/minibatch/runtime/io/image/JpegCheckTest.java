package dev.minibatch.runtime.io.image;

import static dev.minibatch.runtime.io.image.JpegSamples.cut;
import static dev.minibatch.runtime.io.image.JpegSamples.handMade;
import static dev.minibatch.runtime.io.image.JpegSamples.insert;
import static dev.minibatch.runtime.io.image.JpegSamples.libjpeg;
import static dev.minibatch.runtime.io.image.JpegSamples.scanStart;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_OPTIMIZE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_PROGRESSIVE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_RST_INTERVAL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.image.JpegCheck.Fault;
import dev.minibatch.runtime.io.image.JpegSamples.Libjpeg;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;

/**
 * {@link JpegCheck} on JPEGs from three encoders, whole and damaged in known ways; libjpeg's own
 * verdict ({@link JpegSamples#libjpeg}) says which are good.
 */
class JpegCheckTest {
  private final JpegCheck check = new JpegCheck();

  /** Valid JPEGs of every kind the encoders here make: each one passes, and libjpeg agrees. */
  static List<byte[]> valid() {
    List<byte[]> all = new ArrayList<>();
    long seed = 1;
    int[][] sizes = {{37, 53}, {8, 8}, {1, 1}, {17, 250}, {64, 48}};
    for (int[] size : sizes) {
      for (int channels : new int[] {1, 3}) {
        try (Mat m = JpegSamples.picture(size[0], size[1], channels, seed++)) {
          for (int quality : new int[] {5, 50, 90, 100}) {
            for (int restart : new int[] {0, 1, 3}) {
              for (int optimize : new int[] {0, 1}) {
                all.add(JpegSamples.opencv(m, IMWRITE_JPEG_QUALITY, quality, IMWRITE_JPEG_RST_INTERVAL, restart,
                    IMWRITE_JPEG_OPTIMIZE, optimize));
              }
            }
          }
          all.add(JpegSamples.opencv(m, IMWRITE_JPEG_QUALITY, 90, IMWRITE_JPEG_PROGRESSIVE, 1));
        }
      }
    }
    for (int[] hv : new int[][] {{1, 1}, {2, 1}, {1, 2}, {2, 2}}) {
      for (int restart : new int[] {0, 2}) {
        all.add(JpegSamples.jdk(37, 51, seed++, hv[0], hv[1], restart));
      }
    }
    for (int restart : new int[] {0, 5}) {
      all.add(JpegSamples.threeScans(35, 49, seed++, 80, restart));
      all.add(JpegSamples.threeScans(16, 16, seed++, 95, restart));
    }
    return all;
  }

  @Test
  void everyValidJpegPassesAndLibjpegAgrees() {
    List<byte[]> all = valid();
    assertTrue(all.size() > 250, "variety: " + all.size());
    for (int i = 0; i < all.size(); i++) {
      byte[] jpeg = all.get(i);
      assertNull(check.check(jpeg, 0, jpeg.length), "valid JPEG " + i);
      assertEquals(Fault.NONE, check.fault());
      Libjpeg verdict = libjpeg(jpeg);
      assertTrue(verdict.silent(), "libjpeg on valid JPEG " + i + ": " + verdict.warnings());
    }
  }

  @Test
  void bytesInNativeMemoryAndAtAnOffsetAreCheckedTheSame() {
    byte[] jpeg = JpegSamples.threeScans(35, 49, 7, 80, 0);
    byte[] truncated = cut(jpeg, 300, jpeg.length);
    ByteBuffer direct = ByteBuffer.allocateDirect(truncated.length + 10);
    direct.position(10);
    direct.put(truncated);
    String inArray = check.check(truncated, 0, truncated.length);
    assertEquals(inArray, check.check(direct, 10, truncated.length));
    byte[] padded = insert(truncated, 0, new byte[7]);
    assertEquals(inArray, check.check(ByteBuffer.wrap(padded), 7, truncated.length));
    assertEquals(inArray, check.check(padded, 7, truncated.length));
    assertNull(check.check(ByteBuffer.wrap(TestImages.png(2, 2, 1, (y, x, c) -> 0)), 0, 10), "not a JPEG: passes");
  }

  /** A cut anywhere in the entropy-coded data leaves MCUs without their bits; a cut later, no EOI. */
  @Test
  void everyTruncationIsRejected() {
    List<byte[]> samples = List.of(JpegSamples.opencv(JpegSamples.picture(40, 56, 3, 3), IMWRITE_JPEG_QUALITY, 90),
        JpegSamples.opencv(JpegSamples.picture(40, 56, 1, 4), IMWRITE_JPEG_QUALITY, 75, IMWRITE_JPEG_RST_INTERVAL, 2),
        JpegSamples.jdk(33, 45, 5, 1, 1, 3), JpegSamples.threeScans(35, 49, 6, 90, 0));
    for (byte[] jpeg : samples) {
      int from = scanStart(jpeg);
      int dataEnd = endOfData(jpeg, from);
      for (int at = from; at < dataEnd; at++) {
        byte[] t = cut(jpeg, at, jpeg.length);
        String problem = check.check(t, 0, t.length);
        assertEquals(Fault.PREMATURE_END, check.fault(), "cut at " + at + " of " + jpeg.length + ": " + problem);
        assertTrue(problem.contains("premature end of data segment"), problem);
      }
      // Later cuts: in a later scan's data, or among segments, or the EOI itself.
      for (int at = dataEnd; at < jpeg.length; at++) {
        byte[] t = cut(jpeg, at, jpeg.length);
        String problem = check.check(t, 0, t.length);
        assertTrue(check.fault() == Fault.PREMATURE_END || check.fault() == Fault.TRUNCATED, "cut at " + at + ": "
            + problem);
      }
      byte[] noEoi = cut(jpeg, jpeg.length - 2, jpeg.length);
      assertTrue(check.check(noEoi, 0, noEoi.length).contains("without an EOI marker"));
    }
  }

  @Test
  void bytesBeforeEoiOrARestartMarkerAreExtraneousButFillBytesAreNot() {
    byte[] jpeg = JpegSamples.opencv(JpegSamples.picture(40, 56, 3, 8), IMWRITE_JPEG_QUALITY, 90);
    int eoi = jpeg.length - 2;
    for (int n = 1; n <= 4; n++) {
      byte[] garbage = new byte[n];
      java.util.Arrays.fill(garbage, (byte) 0x5A);
      byte[] bad = insert(jpeg, eoi, garbage);
      String problem = check.check(bad, 0, bad.length);
      assertEquals(Fault.EXTRANEOUS, check.fault(), problem);
      assertEquals(eoi, check.faultOffset(), "the first byte left over");
      assertEquals(eoi + n, check.faultEnd(), "up to the marker");
      assertTrue(problem.startsWith("corrupt JPEG: " + n + " bytes of entropy-coded data, byte " + eoi + " to "
          + (eoi + n - 1) + ", are left after the last MCU of scan 1, before marker 0xFFD9 at byte " + (eoi + n)
          + " (libjpeg: extraneous bytes before marker)"), problem);
    }
    byte[] filled = insert(jpeg, eoi, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF);
    assertNull(check.check(filled, 0, filled.length), "0xFF fill bytes before a marker are allowed");
    assertTrue(libjpeg(filled).silent());
    byte[] after = insert(jpeg, jpeg.length, (byte) 1, (byte) 2, (byte) 3);
    assertNull(check.check(after, 0, after.length), "bytes after EOI are ignored, as libjpeg ignores them");

    byte[] restarts = JpegSamples.opencv(JpegSamples.picture(40, 56, 1, 9), IMWRITE_JPEG_QUALITY, 90,
        IMWRITE_JPEG_RST_INTERVAL, 2);
    int rst1 = indexOf(restarts, (byte) 0xFF, (byte) 0xD1);
    byte[] beforeRst = insert(restarts, rst1, (byte) 0x11, (byte) 0x22);
    assertTrue(check.check(beforeRst, 0, beforeRst.length).contains("are left after the last MCU of restart "
        + "interval 2 of scan 1, before marker 0xFFD1"), check.check(beforeRst, 0, beforeRst.length));
    assertEquals(rst1, check.faultOffset());
  }

  @Test
  void restartMarkersMustComeInOrder() {
    byte[] jpeg = JpegSamples.opencv(JpegSamples.picture(40, 56, 1, 10), IMWRITE_JPEG_QUALITY, 90,
        IMWRITE_JPEG_RST_INTERVAL, 1);
    int rst2 = indexOf(jpeg, (byte) 0xFF, (byte) 0xD2);
    byte[] swapped = jpeg.clone();
    swapped[rst2 + 1] = (byte) 0xD5;
    String problem = check.check(swapped, 0, swapped.length);
    assertEquals(Fault.RESTART, check.fault());
    assertEquals("corrupt JPEG: found marker 0xFFD5 at byte " + rst2 + " where RST2 should follow MCU 3 of 35 of "
        + "scan 1 (libjpeg: found marker instead of RST2)", problem);
    assertFalse(libjpeg(swapped).silent(), "libjpeg warns too");
  }

  /**
   * Hand-made data (JpegSamples.handMade's tables): each case's verdict follows from the bits, and
   * libjpeg's verdict is known for each: it warns of a bad code and of missing data, and decodes
   * without a word the three symbols no encoder writes.
   */
  @Test
  void handMadeBlocksGetTheVerdictTheirBitsCallFor() {
    String coef = "0011"; // 001: one coefficient of category 1, then its magnitude bit
    String[] good = {
        "0" + "000", // DC, end-of-block
        "0" + coef.repeat(63), // all 63 coefficients, no end-of-block needed
        "0" + "011" + coef + "000", // sixteen zeros, a coefficient, end-of-block
        "0" + coef.repeat(47) + "011", // sixteen zeros fill positions 48..63 exactly
        "0" + "010" + "1" + "000", // a zero then a coefficient
    };
    for (String bits : good) {
      byte[] jpeg = handMade(8, 8, 0, bits);
      assertNull(check.check(jpeg, 0, jpeg.length), bits);
      assertTrue(libjpeg(jpeg).silent(), bits);
    }
    byte[] past = handMade(8, 8, 0, "0" + coef.repeat(62) + "0101");
    assertEquals("corrupt JPEG: coefficients past position 63 of a block near byte " + (scanStart(past) + 31)
        + " in MCU 1 of 1 of scan 1, component 1: no encoder writes this, libjpeg decodes it into a wrong block",
        check.check(past, 0, past.length));
    assertEquals(Fault.IMPOSSIBLE, check.fault());
    assertTrue(libjpeg(past).silent(), "libjpeg writes the 64th coefficient into position 63");
    byte[] zeros = handMade(8, 8, 0, "0" + coef.repeat(48) + "011");
    assertTrue(check.check(zeros, 0, zeros.length).contains("coefficients past position 63"));
    byte[] category11 = handMade(8, 8, 0, "0" + "100" + "11111111111" + "000");
    assertTrue(check.check(category11, 0, category11.length).contains("an AC coefficient of category 11 (8-bit "
        + "samples need at most 10)"), check.check(category11, 0, category11.length));
    assertTrue(libjpeg(category11).silent());
    byte[] undefined = handMade(8, 8, 0, "0" + "101");
    assertTrue(check.check(undefined, 0, undefined.length).contains("AC symbol 0x50, which sequential JPEG does "
        + "not define"));
    assertTrue(libjpeg(undefined).silent(), "libjpeg takes it for end-of-block");

    byte[] badCode = handMade(16, 8, 0, "0" + "110" + "0".repeat(30) + "0000");
    assertEquals(Fault.BAD_CODE, fault(badCode));
    assertTrue(check.check(badCode, 0, badCode.length).endsWith("in MCU 1 of 2 of scan 1, component 1 (libjpeg: bad "
        + "Huffman code)"), check.check(badCode, 0, badCode.length));
    assertEquals(List.of("Corrupt JPEG data: bad Huffman code"), libjpeg(badCode).warnings());

    byte[] oneOfTwo = handMade(16, 8, 0, "0000"); // one block's bits, then 1-bits: no code for the next DC
    assertEquals("corrupt JPEG: the entropy-coded data ends at marker 0xFFD9 at byte " + (scanStart(oneOfTwo) + 1)
        + " in MCU 2 of 2 of scan 1 (libjpeg: premature end of data segment)", check.check(oneOfTwo, 0,
            oneOfTwo.length));
    assertEquals(List.of("Corrupt JPEG data: premature end of data segment"), libjpeg(oneOfTwo).warnings());
    byte[] twoOfTwo = handMade(16, 8, 0, "0000" + "0000");
    assertNull(check.check(twoOfTwo, 0, twoOfTwo.length));

    byte[] intervals = handMade(16, 8, 1, "0000|0000");
    assertNull(check.check(intervals, 0, intervals.length));
    assertTrue(libjpeg(intervals).silent());
    byte[] noRestart = handMade(16, 8, 1, "0000" + "1111" + "0000");
    assertEquals(Fault.EXTRANEOUS, fault(noRestart));
  }

  @Test
  void markersAndSegmentsAreWalked() {
    byte[] jpeg = JpegSamples.opencv(JpegSamples.picture(16, 16, 1, 11), IMWRITE_JPEG_QUALITY, 90);
    byte[] noEoi = cut(jpeg, jpeg.length - 2, jpeg.length);
    assertTrue(check.check(noEoi, 0, noEoi.length).endsWith("bytes end after the entropy-coded data of scan 1, "
        + "without an EOI marker"), check.check(noEoi, 0, noEoi.length));
    byte[] header = cut(jpeg, 30, jpeg.length);
    assertEquals(Fault.TRUNCATED, fault(header));
    byte[] app = insert(jpeg, 2, (byte) 0xFF, (byte) 0xE5, (byte) 0, (byte) 5, (byte) 'a', (byte) 'b', (byte) 'c');
    assertNull(check.check(app, 0, app.length), "an APP5 segment");
    int app0End = 4 + ((jpeg[4] & 0xFF) << 8 | (jpeg[5] & 0xFF));
    byte[] junk = insert(jpeg, app0End, (byte) 0x00, (byte) 0x01);
    assertEquals("corrupt JPEG: 2 bytes at byte " + app0End + " where a marker should be (libjpeg: extraneous bytes "
        + "before marker)", check.check(junk, 0, junk.length));
    assertFalse(libjpeg(junk).silent());
    byte[] notJpeg = insert(jpeg, 2, (byte) 0x00);
    assertNull(check.check(notJpeg, 0, notJpeg.length), "FF D8 00 is not a JPEG to OpenCV, nor to the check");
    byte[] unknown = insert(jpeg, 2, (byte) 0xFF, (byte) 0x02, (byte) 0, (byte) 2);
    assertEquals("corrupt JPEG: marker 0xFF02 at byte 2 is not one libjpeg reads", check.check(unknown, 0,
        unknown.length));
    byte[] lossless = jpeg.clone();
    lossless[indexOf(jpeg, (byte) 0xFF, (byte) 0xC0) + 1] = (byte) 0xC3;
    assertTrue(check.check(lossless, 0, lossless.length).contains("lossless or hierarchical"));
    byte[] longSegment = jpeg.clone();
    longSegment[4] = (byte) 0x7F; // APP0's length, now 0x7F10
    assertEquals(Fault.TRUNCATED, fault(longSegment));
    byte[] twoSoi = insert(jpeg, 2, (byte) 0xFF, (byte) 0xD8);
    assertEquals("corrupt JPEG: a second SOI marker at byte 2", check.check(twoSoi, 0, twoSoi.length));
  }

  /** Whatever the bytes, the check returns; it never throws. */
  @Test
  void randomDamageAnywhereEndsInAVerdictNotAnException() {
    Random r = new Random(24);
    List<byte[]> samples = List.of(JpegSamples.opencv(JpegSamples.picture(24, 40, 3, 12), IMWRITE_JPEG_QUALITY, 80,
        IMWRITE_JPEG_RST_INTERVAL, 1), JpegSamples.threeScans(16, 24, 13, 60, 0),
        JpegSamples.opencv(JpegSamples.picture(24, 40, 3, 14), IMWRITE_JPEG_QUALITY, 80, IMWRITE_JPEG_PROGRESSIVE, 1));
    int rejected = 0;
    for (int t = 0; t < 20_000; t++) {
      byte[] x = samples.get(t % samples.size()).clone();
      for (int k = 1 + r.nextInt(4); k > 0; k--) {
        x[3 + r.nextInt(x.length - 3)] = (byte) r.nextInt(256);
      }
      if (r.nextInt(4) == 0) {
        x = cut(x, 3 + r.nextInt(x.length - 3), x.length);
      }
      if (check.check(x, 0, x.length) != null) {
        rejected++;
      }
    }
    assertTrue(rejected > 10_000, "most random damage is found: " + rejected);
  }

  /** Where the scan data from {@code p} ends: its first marker other than a restart marker. */
  private static int endOfData(byte[] b, int p) {
    for (int i = p; ; i++) {
      int next = b[i + 1] & 0xFF;
      if (b[i] == (byte) 0xFF && next != 0 && next != 0xFF && (next < 0xD0 || next > 0xD7)) {
        return i;
      }
    }
  }

  /** The check's verdict on {@code b}. */
  private Fault fault(byte[] b) {
    check.check(b, 0, b.length);
    return check.fault();
  }

  private static int indexOf(byte[] b, byte first, byte second) {
    for (int i = 0; i + 1 < b.length; i++) {
      if (b[i] == first && b[i + 1] == second) {
        return i;
      }
    }
    throw new AssertionError("not found");
  }

  /** The image's DHT segments' tables, each as (class << 4 | id) followed by its 16 counts and symbols. */
  private static List<byte[]> huffmanTables(byte[] jpeg) {
    List<byte[]> tables = new ArrayList<>();
    int p = 2;
    while ((jpeg[p + 1] & 0xFF) != 0xDA) {
      int length = (jpeg[p + 2] & 0xFF) << 8 | (jpeg[p + 3] & 0xFF);
      if ((jpeg[p + 1] & 0xFF) == 0xC4) {
        for (int t = p + 4; t < p + 2 + length; ) {
          int symbols = 0;
          for (int l = 0; l < 16; l++) {
            symbols += jpeg[t + 1 + l] & 0xFF;
          }
          tables.add(java.util.Arrays.copyOfRange(jpeg, t, t + 17 + symbols));
          t += 17 + symbols;
        }
      }
      p += 2 + length;
    }
    return tables;
  }

  /** {@code jpeg} without its DHT segments, as a Motion-JPEG frame is stored. */
  private static byte[] withoutHuffmanTables(byte[] jpeg) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.write(jpeg, 0, 2);
    int p = 2;
    while ((jpeg[p + 1] & 0xFF) != 0xDA) {
      int length = (jpeg[p + 2] & 0xFF) << 8 | (jpeg[p + 3] & 0xFF);
      if ((jpeg[p + 1] & 0xFF) != 0xC4) {
        out.write(jpeg, p, 2 + length);
      }
      p += 2 + length;
    }
    out.write(jpeg, p, jpeg.length - p);
    return out.toByteArray();
  }

  private static byte[] pixels(byte[] jpeg) {
    ByteBuffer direct = ByteBuffer.allocateDirect(jpeg.length).put(jpeg).flip();
    try (org.bytedeco.javacpp.BytePointer p = new org.bytedeco.javacpp.BytePointer(direct);
        Mat m = OpenCv.decode(p, 0, jpeg.length, org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR)) {
      byte[] out = new byte[(int) (m.total() * m.channels())];
      m.data().get(out);
      return out;
    }
  }

  @Test
  void aScanWhoseTablesTheImageLeavesOutIsCheckedWithTheStandardOnes() {
    byte[] jpeg;
    try (Mat m = JpegSamples.picture(37, 53, 3, 11)) {
      jpeg = JpegSamples.opencv(m, IMWRITE_JPEG_QUALITY, 90);
    }
    // libjpeg's encoder writes the tables of ITU T.81 Annex K unless told to optimise them: they are
    // the check's standard tables, byte for byte.
    List<byte[]> written = huffmanTables(jpeg);
    assertEquals(4, written.size());
    for (byte[] t : written) {
      boolean dc = (t[0] >> 4) == 0;
      org.junit.jupiter.api.Assertions.assertArrayEquals(JpegCheckHuffman.standardSpec(dc, t[0] & 15),
          java.util.Arrays.copyOfRange(t, 1, t.length), "table class " + (t[0] >> 4) + ", id " + (t[0] & 15));
    }
    // Stored without them, as Motion-JPEG frames are: libjpeg-turbo (OpenCV) decodes the same pixels
    // with its standard tables, and the check passes it.
    byte[] bare = withoutHuffmanTables(jpeg);
    assertTrue(huffmanTables(bare).isEmpty());
    org.junit.jupiter.api.Assertions.assertArrayEquals(pixels(jpeg), pixels(bare));
    assertNull(check.check(bare, 0, bare.length));
    // Its entropy-coded data is checked with those tables: cut 20 bytes before EOI, it ends early
    // (libjpeg-turbo warns "premature end of data segment" and decodes grey blocks).
    byte[] cut = cut(bare, bare.length - 22, bare.length - 2);
    assertTrue(check.check(cut, 0, cut.length) != null);
    assertEquals(Fault.PREMATURE_END, check.fault());
    // Tables 2 and 3 have no standard stand-in: libjpeg stops, and so does the check.
    byte[] table2 = bare.clone();
    int sos = scanStart(table2) - 8; // the first component's selector: after FF DA, length, Ns, its id
    assertEquals(3, table2[sos - 2], "three components in the scan");
    table2[sos] = 0x20;
    String problem = check.check(table2, 0, table2.length);
    assertEquals(Fault.STRUCTURE, check.fault());
    assertTrue(problem != null && problem.contains("DC Huffman table 2, which the image does not define"), problem);
  }
}
