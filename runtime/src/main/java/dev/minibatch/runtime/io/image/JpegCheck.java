package dev.minibatch.runtime.io.image;

import static dev.minibatch.runtime.io.image.JpegCheckEntropy.MAX_BLOCKS_IN_MCU;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Finds the corrupt JPEGs that OpenCV decodes without an error. OpenCV's JPEG decoder passes
 * libjpeg's warnings ("Corrupt JPEG data: premature end of data segment", "… extraneous bytes
 * before marker …", "… bad Huffman code") to no one, and with OpenCV's in-memory source a JPEG cut
 * short is not even warned about: the image decodes to grey or shifted blocks and nothing names the
 * record. This class reads the encoded bytes as libjpeg does, without the inverse DCT,
 * dequantisation or colour conversion, and says what libjpeg would have warned about.
 *
 * <p>What it checks:
 *
 * <ul>
 *   <li>the markers from SOI to EOI: every segment's length inside the bytes, nothing between
 *       segments but fill bytes (0xFF), only markers libjpeg reads, one frame header before the
 *       first scan, and an EOI after the last scan (bytes after EOI are ignored, as libjpeg ignores
 *       them);
 *   <li>for sequential Huffman-coded frames (SOF0, SOF1) of 8- or 12-bit samples, every scan's
 *       entropy-coded data, symbol by symbol ({@link JpegCheckEntropy}): the data holds every MCU
 *       the frame's size calls for (libjpeg: "premature end of data segment"); no whole byte is
 *       left between the last MCU of a scan or restart interval and the next marker ("extraneous
 *       bytes before marker"); every code is in its table ("bad Huffman code"); restart markers come
 *       in order ("found marker … instead of RST…"); the Huffman tables are valid and the scan
 *       header is a sequential one (libjpeg stops on the first, warns on the second); and each
 *       component is in exactly one scan;
 *   <li>and, beyond libjpeg, three things no encoder writes, which libjpeg decodes without a word
 *       into a wrong block: coefficients past position 63 of a block, a magnitude category larger
 *       than the sample precision allows (DC 11 and AC 10 for 8-bit samples, ITU T.81 F.1.2), and an
 *       AC symbol with a zero magnitude that is neither end-of-block nor a run of 16 zeros.
 * </ul>
 *
 * <p>Progressive (SOF2) and arithmetic-coded (SOF9, SOF10) scans are walked to the marker after
 * them without decoding their data. A sequential scan whose Huffman table 0 or 1 the file never
 * defines is checked with the standard table of ITU T.81 Annex K, as libjpeg-turbo decodes it
 * (Motion-JPEG frames leave those tables out); an undefined table 2 or 3 is an error, as in
 * libjpeg. A flipped bit that leaves the data a valid stream (most flips of a coefficient's
 * magnitude bits) cannot be found this way, by libjpeg or by anyone without a checksum.
 *
 * <p>One instance per thread: it keeps its tables (rebuilt only when an image's differ from the
 * last one's) and a byte buffer for images in native memory, and allocates nothing else for a good
 * image.
 */
final class JpegCheck {
  /** The kind of problem found. */
  enum Fault {
    /** No problem, or not a JPEG. */
    NONE,
    /** A marker, segment or table libjpeg stops at or warns about. */
    STRUCTURE,
    /** The bytes end before EOI, outside entropy-coded data. */
    TRUNCATED,
    /** Entropy-coded data ends (at a marker or the end of the bytes) before its last MCU. */
    PREMATURE_END,
    /** Bytes left between the last MCU of a scan or restart interval and the next marker. */
    EXTRANEOUS,
    /** Bits that are no code of their Huffman table. */
    BAD_CODE,
    /** A marker other than the next restart marker at the end of a restart interval. */
    RESTART,
    /** A symbol no encoder writes. */
    IMPOSSIBLE
  }

  private static final int MAX_COMPONENTS = 10;

  private byte[] data = new byte[0];
  private byte[] scratch = new byte[0];
  private int start;
  private int end;

  // The frame.
  private int sof;
  private int precision;
  private int height;
  private int width;
  private int components;
  private final int[] componentId = new int[MAX_COMPONENTS];
  private final int[] h = new int[MAX_COMPONENTS];
  private final int[] v = new int[MAX_COMPONENTS];
  private final boolean[] scanned = new boolean[MAX_COMPONENTS];
  private int hMax;
  private int vMax;
  private int restartInterval;
  private int scans;

  private final JpegCheckHuffman[] dcTables = tables();
  private final JpegCheckHuffman[] acTables = tables();
  /** libjpeg-turbo's stand-ins for tables 0 and 1 an image never defines: DC 0, DC 1, AC 0, AC 1; built when first needed. */
  private final @Nullable JpegCheckHuffman[] standardTables = new JpegCheckHuffman[4];
  private final JpegCheckEntropy entropy = new JpegCheckEntropy();

  private Fault fault = Fault.NONE;
  private int faultOffset = -1;
  private int faultEnd = -1;
  private @Nullable String problem;
  /** Set by {@link #frameSize}: the walk stops at the frame header. */
  private boolean frameOnly;

  private static JpegCheckHuffman[] tables() {
    return new JpegCheckHuffman[] {new JpegCheckHuffman(), new JpegCheckHuffman(), new JpegCheckHuffman(),
        new JpegCheckHuffman()};
  }

  /** Whether the {@code length} bytes at {@code offset} start as OpenCV's JPEG decoder requires ({@code FF D8 FF}). */
  static boolean isJpeg(ByteBuffer b, int offset, int length) {
    return length >= 3 && b.get(offset) == (byte) 0xFF && b.get(offset + 1) == (byte) 0xD8
        && b.get(offset + 2) == (byte) 0xFF;
  }

  /**
   * Checks the {@code length} bytes at {@code offset} of {@code b} (its position and limit are
   * neither used nor changed) if they are a JPEG ({@link #isJpeg}); other bytes pass.
   *
   * @return null if they pass, else what is wrong and where, starting "corrupt JPEG: " (byte
   *     offsets count from the image's first byte)
   */
  @Nullable String check(ByteBuffer b, int offset, int length) {
    if (!isJpeg(b, offset, length)) {
      return pass();
    }
    if (b.hasArray()) {
      return check(b.array(), b.arrayOffset() + offset, length);
    }
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, scratch.length + (scratch.length >> 1))];
    }
    b.get(offset, scratch, 0, length);
    return check(scratch, 0, length);
  }

  /** As {@link #check(ByteBuffer, int, int)}, for bytes in an array. */
  @Nullable String check(byte[] b, int offset, int length) {
    pass();
    if (length < 3 || b[offset] != (byte) 0xFF || b[offset + 1] != (byte) 0xD8 || b[offset + 2] != (byte) 0xFF) {
      return null;
    }
    data = b;
    start = offset;
    end = offset + length;
    sof = -1;
    restartInterval = 0;
    scans = 0;
    for (int t = 0; t < 4; t++) {
      dcTables[t].defined = false;
      acTables[t].defined = false;
    }
    entropy.image(b, end);
    try {
      walk();
    } finally {
      // Hold on to no caller's array between images.
      data = scratch;
      entropy.release();
    }
    return problem;
  }

  /**
   * Reads only the segments up to the frame header of the {@code length} bytes at {@code offset},
   * for the reduced decode (the same walk as {@link #check}, stopped at the frame): after true,
   * {@link #frameWidth()} and {@link #frameHeight()} are the size the frame declares. False when
   * the bytes are not a JPEG or the walk finds a problem before the frame.
   */
  boolean frameSize(ByteBuffer b, int offset, int length) {
    frameOnly = true;
    try {
      return check(b, offset, length) == null && sof >= 0;
    } finally {
      frameOnly = false;
    }
  }

  /**
   * The width the frame header of the last JPEG checked (or read by {@link #frameSize}) declares;
   * meaningful after a check that passed, or a {@code frameSize} that returned true.
   */
  int frameWidth() {
    return width;
  }

  /** The height the frame header declares; see {@link #frameWidth()}. */
  int frameHeight() {
    return height;
  }

  /** The number of components the frame header declares (1 gray, 3 colour, 4 CMYK); see {@link #frameWidth()}. */
  int frameComponents() {
    return components;
  }

  /**
   * Whether the last JPEG checked had a valid frame header, whatever it found after it (false too for
   * bytes that are not a JPEG): then {@link #frameWidth()}, {@link #frameHeight()} and {@link
   * #frameComponents()} are the frame's, even when the check found a problem later in the image.
   */
  boolean hasFrame() {
    return sof >= 0;
  }

  /** What the last check found. */
  Fault fault() {
    return fault;
  }

  /** Where, from the image's first byte, the last check found its problem; -1 for none. */
  int faultOffset() {
    return faultOffset;
  }

  /** For {@link Fault#EXTRANEOUS}: where the bytes left over end (at the next marker); else -1. */
  int faultEnd() {
    return faultEnd;
  }

  private @Nullable String pass() {
    sof = -1;
    fault = Fault.NONE;
    faultOffset = -1;
    faultEnd = -1;
    problem = null;
    return null;
  }

  /** Records the problem; false, so that callers can {@code return fail(...)}. */
  private boolean fail(Fault f, int at, String message) {
    fault = f;
    faultOffset = at - start;
    problem = "corrupt JPEG: " + message;
    return false;
  }

  private int u8(int p) {
    return data[p] & 0xFF;
  }

  private int u16(int p) {
    return (data[p] & 0xFF) << 8 | (data[p + 1] & 0xFF);
  }

  /** {@code "byte 123"}: a position, counted from the image's first byte. */
  private String at(int p) {
    return "byte " + (p - start);
  }

  private static String hex(int marker) {
    return String.format("0xFF%02X", marker);
  }

  private String truncated() {
    return "the " + (end - start) + " bytes end";
  }

  /**
   * Huffman table {@code t} of class DC or AC as a scan decodes with it: the image's own; for table 0
   * or 1 the image never defines, the standard one libjpeg-turbo supplies (Motion-JPEG frames leave
   * them out); else null, which libjpeg refuses.
   */
  private @Nullable JpegCheckHuffman table(boolean dc, int t) {
    JpegCheckHuffman own = (dc ? dcTables : acTables)[t];
    if (own.defined) {
      return own;
    }
    if (t > 1) {
      return null;
    }
    int k = (dc ? 0 : 2) + t;
    JpegCheckHuffman std = standardTables[k];
    if (std == null) {
      std = JpegCheckHuffman.standard(dc, t);
      standardTables[k] = std;
    }
    return std;
  }

  /** Walks the segments after SOI up to EOI; false with the problem recorded. */
  private boolean walk() {
    int p = start + 2;
    while (true) {
      if (p >= end) {
        return fail(Fault.TRUNCATED, end, truncated() + " without an EOI marker");
      }
      if (u8(p) != 0xFF) {
        int q = p;
        while (q < end && u8(q) != 0xFF) {
          q++;
        }
        faultEnd = q - start;
        return fail(Fault.EXTRANEOUS, p, (q - p) + " bytes at " + at(p) + " where a marker should be"
            + " (libjpeg: extraneous bytes before marker)");
      }
      int q = p + 1;
      while (q < end && u8(q) == 0xFF) {
        q++; // fill bytes
      }
      if (q >= end) {
        return fail(Fault.TRUNCATED, end, truncated() + " without an EOI marker");
      }
      int code = u8(q);
      int marker = p;
      p = q + 1;
      if (code == 0xD9) {
        return endOfImage(marker);
      }
      if (code == 0x01 || (code >= 0xD0 && code <= 0xD7)) {
        continue; // TEM and a stray RSTn have no segment; libjpeg passes over them
      }
      if (code == 0x00) {
        faultEnd = p - start;
        return fail(Fault.EXTRANEOUS, marker, "bytes 0xFF00 at " + at(marker) + " where a marker should be"
            + " (libjpeg: extraneous bytes before marker)");
      }
      if (code == 0xD8) {
        return fail(Fault.STRUCTURE, marker, "a second SOI marker at " + at(marker));
      }
      if (!hasSegment(code)) {
        return fail(Fault.STRUCTURE, marker, "marker " + hex(code) + " at " + at(marker)
            + " is not one libjpeg reads");
      }
      if (p + 2 > end) {
        return fail(Fault.TRUNCATED, end, truncated() + " inside the length of segment " + hex(code) + " at "
            + at(marker));
      }
      int length = u16(p);
      if (length < 2) {
        return fail(Fault.STRUCTURE, marker, "segment " + hex(code) + " at " + at(marker) + " declares length "
            + length + " (at least 2)");
      }
      if (p + length > end) {
        return fail(Fault.TRUNCATED, end, truncated() + " inside segment " + hex(code) + " at " + at(marker)
            + ", which declares " + length + " bytes");
      }
      int body = p + 2;
      int next = p + length;
      switch (code) {
        case 0xC0, 0xC1, 0xC2, 0xC9, 0xCA -> {
          if (!frame(code, marker, body, next)) {
            return false;
          }
          if (frameOnly) {
            return true;
          }
        }
        case 0xC3, 0xC5, 0xC6, 0xC7, 0xCB, 0xCD, 0xCE, 0xCF -> {
          return fail(Fault.STRUCTURE, marker, "frame header " + hex(code) + " at " + at(marker)
              + " is for a lossless or hierarchical JPEG, which libjpeg does not decode");
        }
        case 0xC4 -> {
          if (!huffmanTables(marker, body, next)) {
            return false;
          }
        }
        case 0xDD -> {
          if (length != 4) {
            return fail(Fault.STRUCTURE, marker, "DRI segment at " + at(marker) + " declares length " + length
                + " (4)");
          }
          restartInterval = u16(body);
        }
        case 0xDA -> {
          next = scan(marker, body, next);
          if (next < 0) {
            return false;
          }
        }
        default -> {
          // DQT, DAC, DNL, APPn, COM: decoding checks nothing in them that matters here.
        }
      }
      p = next;
    }
  }

  /** The markers libjpeg reads that have a length and a segment (SOFn but JPG, DHT, DAC, SOS, DQT, DNL, DRI, APPn, COM). */
  private static boolean hasSegment(int code) {
    return (code >= 0xC0 && code <= 0xCF && code != 0xC8) || (code >= 0xDA && code <= 0xDD)
        || (code >= 0xE0 && code <= 0xEF) || code == 0xFE;
  }

  private boolean endOfImage(int marker) {
    if (scans == 0) {
      return fail(Fault.STRUCTURE, marker, "EOI at " + at(marker) + " before any scan: the file holds no image");
    }
    if (sequentialHuffman()) {
      for (int c = 0; c < components; c++) {
        if (!scanned[c]) {
          return fail(Fault.STRUCTURE, marker, "EOI at " + at(marker) + ", but component " + componentId[c]
              + " is in no scan");
        }
      }
    }
    return true;
  }

  /** Whether the frame's scans are decoded (sequential Huffman, 8- or 12-bit). */
  private boolean sequentialHuffman() {
    return (sof == 0xC0 || sof == 0xC1) && (precision == 8 || precision == 12);
  }

  private boolean frame(int code, int marker, int body, int next) {
    if (sof >= 0) {
      return fail(Fault.STRUCTURE, marker, "a second frame header at " + at(marker));
    }
    int n = next - body >= 6 ? u8(body + 5) : 0;
    if (next - body != 6 + 3 * n || n < 1 || n > MAX_COMPONENTS) {
      return fail(Fault.STRUCTURE, marker, "the frame header at " + at(marker) + " is " + (next - body + 2)
          + " bytes long for " + n + " components (1 to " + MAX_COMPONENTS + " components, 8 + 3 per component"
          + " bytes)");
    }
    precision = u8(body);
    height = u16(body + 1);
    width = u16(body + 3);
    components = n;
    if (height == 0 || width == 0) {
      return fail(Fault.STRUCTURE, marker, "the frame header at " + at(marker) + " declares " + width + "x"
          + height + " pixels (a height of 0 needs a DNL marker, which libjpeg does not support)");
    }
    hMax = 1;
    vMax = 1;
    for (int c = 0; c < n; c++) {
      int p = body + 6 + 3 * c;
      componentId[c] = u8(p);
      h[c] = u8(p + 1) >> 4;
      v[c] = u8(p + 1) & 15;
      scanned[c] = false;
      if (h[c] < 1 || h[c] > 4 || v[c] < 1 || v[c] > 4) {
        return fail(Fault.STRUCTURE, marker, "component " + componentId[c] + " has sampling factors " + h[c]
            + "x" + v[c] + " (1 to 4)");
      }
      hMax = Math.max(hMax, h[c]);
      vMax = Math.max(vMax, v[c]);
    }
    // The largest category a DC difference or an AC coefficient can need (ITU T.81, F.1.2.1, F.1.2.2).
    entropy.maxDcCategory = precision == 12 ? 15 : 11;
    entropy.maxAcCategory = precision == 12 ? 14 : 10;
    // Only a frame header read whole counts: hasFrame() must not vouch for a size it failed on.
    sof = code;
    return true;
  }

  private boolean huffmanTables(int marker, int p, int next) {
    while (p < next) {
      if (p + 17 > next) {
        return fail(Fault.STRUCTURE, marker, "the DHT segment at " + at(marker) + " ends inside a table's code"
            + " counts");
      }
      int tc = u8(p) >> 4;
      int th = u8(p) & 15;
      if (tc > 1 || th > 3) {
        return fail(Fault.STRUCTURE, marker, "the DHT segment at " + at(marker) + " defines table class " + tc
            + ", id " + th + " (class 0 or 1, id 0 to 3)");
      }
      int symbols = 0;
      for (int l = 1; l <= 16; l++) {
        symbols += u8(p + l);
      }
      if (symbols > 256 || p + 17 + symbols > next) {
        return fail(Fault.STRUCTURE, marker, "the DHT segment at " + at(marker) + " declares " + symbols
            + " symbols for " + (tc == 0 ? "DC" : "AC") + " table " + th + " but holds " + Math.max(0, next - p - 17));
      }
      (tc == 0 ? dcTables : acTables)[th].define(data, p + 1, 16 + symbols, tc == 0);
      p += 17 + symbols;
    }
    return true;
  }

  /** A scan: its header at [body, headerEnd), then its data; the position after it, or -1. */
  private int scan(int marker, int body, int headerEnd) {
    if (sof < 0) {
      fail(Fault.STRUCTURE, marker, "SOS at " + at(marker) + " before any frame header");
      return -1;
    }
    scans++;
    int ns = headerEnd > body ? u8(body) : 0;
    if (ns < 1 || ns > 4 || headerEnd - body != 4 + 2 * ns) {
      fail(Fault.STRUCTURE, marker, "the SOS segment at " + at(marker) + " is " + (headerEnd - body + 2)
          + " bytes long for " + ns + " components (1 to 4 components, 6 + 2 per component bytes)");
      return -1;
    }
    if (!sequentialHuffman()) {
      return skip(headerEnd);
    }
    JpegCheckEntropy e = entropy;
    int blocks = 0;
    int only = 0;
    for (int k = 0; k < ns; k++) {
      int id = u8(body + 1 + 2 * k);
      int c = 0;
      while (c < components && componentId[c] != id) {
        c++;
      }
      if (c == components) {
        fail(Fault.STRUCTURE, marker, "the SOS segment at " + at(marker) + " names component " + id
            + ", which the frame does not have");
        return -1;
      }
      if (scanned[c]) {
        fail(Fault.STRUCTURE, marker, "the SOS segment at " + at(marker) + " names component " + id
            + ", which an earlier scan holds (a sequential JPEG has each component in one scan)");
        return -1;
      }
      scanned[c] = true;
      only = c;
      int td = u8(body + 2 + 2 * k) >> 4;
      int ta = u8(body + 2 + 2 * k) & 15;
      if (td > 3 || ta > 3) {
        fail(Fault.STRUCTURE, marker, "the SOS segment at " + at(marker) + " names Huffman tables " + td + " and "
            + ta + " for component " + id + " (0 to 3)");
        return -1;
      }
      JpegCheckHuffman dc = table(true, td);
      JpegCheckHuffman ac = table(false, ta);
      if (dc == null || ac == null) {
        int missing = dc == null ? td : 0x10 | ta;
        fail(Fault.STRUCTURE, marker, "the SOS segment at " + at(marker) + " uses " + (dc == null ? "DC" : "AC")
            + " Huffman table " + (missing & 15) + ", which the image does not define (libjpeg: Huffman table 0x"
            + String.format("%02x", missing) + " was not defined)");
        return -1;
      }
      // One block per MCU in a one-component scan; else the component's H x V blocks.
      int n = ns == 1 ? 1 : h[c] * v[c];
      if (blocks + n > MAX_BLOCKS_IN_MCU) {
        fail(Fault.STRUCTURE, marker, "the SOS segment at " + at(marker) + " makes MCUs of more than "
            + MAX_BLOCKS_IN_MCU + " blocks");
        return -1;
      }
      for (int i = 0; i < n; i++, blocks++) {
        e.dcTable[blocks] = dc;
        e.acTable[blocks] = ac;
        e.component[blocks] = c;
      }
    }
    int ss = u8(headerEnd - 3);
    int se = u8(headerEnd - 2);
    int a = u8(headerEnd - 1);
    if (ss != 0 || se != 63 || a != 0) {
      fail(Fault.STRUCTURE, marker, "the SOS segment at " + at(marker) + " has spectral selection " + ss + " to "
          + se + " and successive approximation " + (a >> 4) + ", " + (a & 15) + "; a sequential scan has 0 to 63"
          + " and 0, 0 (libjpeg: invalid SOS parameters for sequential JPEG)");
      return -1;
    }
    for (int b = 0; b < blocks; b++) {
      JpegCheckHuffman bad = e.dcTable[b].problem != null ? e.dcTable[b] : e.acTable[b].problem != null
          ? e.acTable[b] : null;
      if (bad != null) {
        fail(Fault.STRUCTURE, marker, "scan " + scans + " at " + at(marker) + " uses a " + (bad.dc ? "DC" : "AC")
            + " Huffman table that " + bad.problem);
        return -1;
      }
    }
    e.blocksInMcu = blocks;
    e.restartInterval = restartInterval;
    if (ns == 1) {
      // A one-component scan covers the component's own blocks, at its sampling.
      int cw = ceilDiv(width * h[only], hMax);
      int ch = ceilDiv(height * v[only], vMax);
      e.mcus = ceilDiv(cw, 8) * ceilDiv(ch, 8);
    } else {
      e.mcus = ceilDiv(width, 8 * hMax) * ceilDiv(height, 8 * vMax);
    }
    int r = e.scan(headerEnd);
    return r >= 0 ? r : entropyProblem(r);
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }

  /** Words what {@link JpegCheckEntropy#scan} found; -1. */
  private int entropyProblem(int r) {
    JpegCheckEntropy e = entropy;
    String mcu = "MCU " + (e.mcu + 1) + " of " + e.mcus + " of scan " + scans;
    String where = e.markerCode < 0 ? "the end of the " + (end - start) + " bytes"
        : "marker " + hex(e.markerCode) + " at " + at(e.markerAt);
    String component = e.block < e.blocksInMcu ? ", component " + componentId[e.component[e.block]] : "";
    switch (r) {
      case JpegCheckEntropy.PREMATURE_END -> fail(Fault.PREMATURE_END, e.markerAt, "the entropy-coded data ends at "
          + where + " in " + mcu + " (libjpeg: premature end of data segment)");
      case JpegCheckEntropy.EXTRANEOUS -> {
        fail(Fault.EXTRANEOUS, e.leftFrom, e.leftBytes + " bytes of entropy-coded data, " + at(e.leftFrom) + " to "
            + (e.markerAt - start - 1) + ", are left after the last MCU of " + (e.mcu == e.mcus ? "scan " + scans
            : "restart interval " + (e.mcu / e.restartInterval) + " of scan " + scans) + ", before " + where
            + " (libjpeg: extraneous bytes before marker)");
        faultEnd = e.markerAt - start;
      }
      case JpegCheckEntropy.BAD_CODE -> fail(Fault.BAD_CODE, e.here(), "no code of the " + (e.badDc ? "DC" : "AC")
          + " Huffman table matches the bits near " + at(e.here()) + " in " + mcu + component
          + " (libjpeg: bad Huffman code)");
      case JpegCheckEntropy.WRONG_RESTART -> fail(Fault.RESTART, e.markerAt, "found " + where + " where RST"
          + e.restartExpected + " should follow MCU " + e.mcu + " of " + e.mcus + " of scan " + scans
          + " (libjpeg: found marker instead of RST" + e.restartExpected + ")");
      case JpegCheckEntropy.NO_MARKER -> fail(Fault.TRUNCATED, end, truncated() + " after the entropy-coded data"
          + " of scan " + scans + ", without an EOI marker");
      default -> fail(Fault.IMPOSSIBLE, e.here(), impossible(e) + " near " + at(e.here()) + " in " + mcu + component
          + ": no encoder writes this, libjpeg decodes it into a wrong block");
    }
    return -1;
  }

  private String impossible(JpegCheckEntropy e) {
    return switch (e.impossible) {
      case JpegCheckEntropy.PAST_63 -> "coefficients past position 63 of a block";
      case JpegCheckEntropy.DC_CATEGORY -> "a DC difference of category " + e.symbol + " (" + precision
          + "-bit samples need at most " + e.maxDcCategory + ")";
      case JpegCheckEntropy.AC_CATEGORY -> "an AC coefficient of category " + (e.symbol & 15) + " (" + precision
          + "-bit samples need at most " + e.maxAcCategory + ")";
      default -> "AC symbol " + String.format("0x%02X", e.symbol) + ", which sequential JPEG does not define";
    };
  }

  /**
   * Passes over entropy-coded data that is not decoded (progressive, arithmetic-coded, or without
   * its tables) up to the first marker that is not a restart marker: its position, or -1.
   */
  private int skip(int p) {
    int q = p;
    while (true) {
      while (q < end && data[q] != (byte) 0xFF) {
        q++;
      }
      int ff = q;
      while (q < end && data[q] == (byte) 0xFF) {
        q++;
      }
      if (q >= end) {
        fail(Fault.TRUNCATED, end, truncated() + " inside the entropy-coded data of scan " + scans
            + ", without an EOI marker");
        return -1;
      }
      int c = data[q] & 0xFF;
      if (c != 0 && (c < 0xD0 || c > 0xD7)) {
        return ff;
      }
      q++;
    }
  }
}
