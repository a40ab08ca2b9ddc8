package dev.minibatch.runtime.io.image;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One Huffman table of a JPEG, built for {@link JpegCheckEntropy}: it only needs to know how many
 * bits each symbol takes and how far it moves the position in the block, never the coefficients'
 * values, so one table lookup covers a code and its magnitude bits.
 */
final class JpegCheckHuffman {
  /** Bits of the one-symbol lookahead table. */
  static final int LOOK = 10;
  /** Bits of the AC tables' several-symbol lookahead table. */
  static final int RUN = 11;
  /** What an end-of-block symbol adds to the position in the block: ends it, and tells it apart. */
  static final int EOB = 128;
  /** Where entries need a closer look ({@link #look}): a category beyond 8-bit samples, an undefined symbol. */
  static final int FLAG = Integer.MIN_VALUE;
  /** A run table of zeros: every lookup falls back to {@link #look}, for scans too small to pay for building one. */
  static final int[] NO_RUN = new int[1 << RUN];
  /**
   * The tables of ITU T.81 Annex K.3 (Tables K.3 to K.6) as DHT bytes (16 code counts, then the
   * symbols): DC luminance (table 0), DC chrominance (1), AC luminance (0), AC chrominance (1).
   * libjpeg-turbo decodes with them a sequential scan whose table 0 or 1 the file never defines
   * (Motion-JPEG frames leave them out), and libjpeg's encoder writes them by default.
   */
  private static final String[] STANDARD = {
    "00010501010101010100000000000000000102030405060708090a0b",
    "00030101010101010101010000000000000102030405060708090a0b",
    "0002010303020403050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f0243362"
        + "7282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a7374757677"
        + "78797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5"
        + "d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa",
    "00020102040403040705040400010277000102031104052131061241510761711322328108144291a1b1c109233352f015627"
        + "2d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475"
        + "767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2"
        + "d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9fa",
  };

  /** Standard table {@code table} (0 or 1) of class DC or AC, built anew ({@link #STANDARD}). */
  static JpegCheckHuffman standard(boolean isDc, int table) {
    byte[] spec = standardSpec(isDc, table);
    JpegCheckHuffman h = new JpegCheckHuffman();
    h.define(spec, 0, spec.length, isDc);
    return h;
  }

  /** The DHT bytes of standard table {@code table} (0 or 1) of class DC or AC. */
  static byte[] standardSpec(boolean isDc, int table) {
    return java.util.HexFormat.of().parseHex(STANDARD[(isDc ? 0 : 2) + table]);
  }

  /**
   * By the next {@value #LOOK} bits: 0 where the code is longer, else the code's entry: the bits it
   * takes with its magnitude bits (bits 0-7); for AC how far it moves the position in the block
   * (8-15: the run plus one, 16 for a run of 16 zeros, {@link #EOB} for end-of-block); the symbol
   * (16-23); and {@link #FLAG} for a symbol that needs a closer look.
   */
  final int[] look = new int[1 << LOOK];
  /** The largest code of each length (index 1..16), or -1 for none. */
  private final int[] maxCode = new int[17];
  /** Index into {@link #symbols} minus the first code of each length. */
  private final int[] valueOffset = new int[17];
  private final byte[] symbols = new byte[256];
  /**
   * AC tables, by the next {@value #RUN} bits: the symbols whose codes they hold, stopping after
   * end-of-block, as one entry: the bits they take with their magnitude bits (bits 0-7, at most 26),
   * and how far they move the position (8-14, less than 64), plus {@link #EOB} when they end the
   * block; 0 where the first code is longer or its symbol needs a closer look. Built when first
   * wanted.
   */
  private final int[] run = new int[1 << RUN];
  private boolean runBuilt;
  /**
   * AC tables: as {@link #run}, but for a block's start: a DC symbol of {@link #startDc} first
   * (which does not move the position), then AC symbols of this table. Built when first wanted.
   */
  private final int[] start = new int[1 << RUN];
  private @Nullable JpegCheckHuffman startDc;
  private int startDcVersion = -1;
  /** Counts the rebuilds, so that a table built from another table can tell when that one changed. */
  private int version;
  /** Whether the last definition repeated the one before: the tables then pay for themselves. */
  boolean repeated;

  /** Whether the image being checked defines this table. */
  boolean defined;
  /** Class 0 (DC) or 1 (AC). */
  boolean dc;
  /** Why libjpeg rejects the table, or null. */
  @Nullable String problem;

  /** The DHT bytes (code counts and symbols) the tables were built from. */
  private final byte[] spec = new byte[16 + 256];
  private int specLength = -1;

  /**
   * Defines the table from the {@code length} DHT bytes at {@code p}: 16 code counts, then the
   * symbols (the caller has checked that they are there and number at most 256).
   */
  void define(byte[] data, int p, int length, boolean isDc) {
    defined = true;
    // Images from one encoder repeat its tables: keep what was built for the same bytes.
    if (isDc == dc && length == specLength && Arrays.equals(spec, 0, length, data, p, p + length)) {
      repeated = true;
      return;
    }
    repeated = false;
    System.arraycopy(data, p, spec, 0, length);
    specLength = length;
    dc = isDc;
    problem = null;
    runBuilt = false;
    startDc = null;
    version++;
    Arrays.fill(look, 0);
    int code = 0;
    int k = 0;
    for (int l = 1; l <= 16; l++) {
      int count = data[p + l - 1] & 0xFF;
      valueOffset[l] = k - code;
      for (int i = 0; i < count; i++, k++, code++) {
        int sym = data[p + 16 + k] & 0xFF;
        symbols[k] = (byte) sym;
        if (isDc && sym > 15 && problem == null) {
          problem = "has DC symbol " + sym + " (0 to 15)";
        }
        if (l <= LOOK && code < (1 << l)) {
          int shift = LOOK - l;
          Arrays.fill(look, code << shift, (code + 1) << shift, entry(sym, l, isDc));
        }
      }
      maxCode[l] = count > 0 ? code - 1 : -1;
      // As libjpeg: the codes of each length must fit in it, and no code may be all ones.
      if (count > 0 && code >= (1 << l) && problem == null) {
        problem = "has more codes than fit in their lengths (or a code of all ones)";
      }
      code <<= 1;
    }
  }

  /** The {@link #look} entry for {@code sym} coded in {@code length} bits. */
  private static int entry(int sym, int length, boolean isDc) {
    int s = sym & 15;
    int e = sym << 16 | (length + s);
    if (isDc) {
      return sym > 11 ? e | FLAG : e;
    }
    if (s != 0) {
      return s > 10 ? e | FLAG : e | ((sym >>> 4) + 1) << 8;
    }
    return sym == 0 ? e | EOB << 8 : sym == 0xF0 ? e | 16 << 8 : e | FLAG;
  }

  /**
   * A code longer than {@value #LOOK} bits at the top of {@code code16} (the next 16 bits): its
   * length times 256 plus its symbol, or -1 when no code of the table matches.
   */
  int longCode(int code16) {
    for (int l = LOOK + 1; l <= 16; l++) {
      int c = code16 >>> (16 - l);
      if (c <= maxCode[l]) {
        return l << 8 | (symbols[valueOffset[l] + c] & 0xFF);
      }
    }
    return -1;
  }

  /** The several-symbol table, built now if it is not, or {@link #NO_RUN} when {@code build} is false. */
  int[] run(boolean build) {
    if (!runBuilt) {
      if (!build) {
        return NO_RUN;
      }
      buildRun();
    }
    return run;
  }

  /**
   * The block-start table after DC table {@code dcTable}, built now if it is not, or {@link
   * #NO_RUN} when {@code build} is false.
   */
  int[] start(JpegCheckHuffman dcTable, boolean build) {
    if (startDc != dcTable || startDcVersion != dcTable.version) {
      if (!build) {
        return NO_RUN;
      }
      for (int w = 0; w < 1 << RUN; w++) {
        int e = dcTable.look[w >>> (RUN - LOOK)];
        start[w] = e <= 0 ? 0 : symbols(w, e & 0xFF);
      }
      startDc = dcTable;
      startDcVersion = dcTable.version;
    }
    return start;
  }

  private void buildRun() {
    for (int w = 0; w < 1 << RUN; w++) {
      run[w] = symbols(w, 0);
    }
    runBuilt = true;
  }

  /**
   * The AC symbols whose codes lie whole in the {@value #RUN} bits {@code w} after its first
   * {@code skip}, stopping after end-of-block and after a symbol whose magnitude bits pass the
   * window's end (reading on needs no more than the code): the entry of {@link #run}, with {@code
   * skip} in its length; 0 when there is not one symbol and nothing skipped.
   */
  private int symbols(int w, int skip) {
    int len = skip;
    int moved = 0;
    int eob = 0;
    while (eob == 0 && len < RUN) {
      int e = look[((w << len) & ((1 << RUN) - 1)) >>> (RUN - LOOK)];
      if (e <= 0 || (e & 0xFF) - ((e >>> 16) & 15) > RUN - len) {
        break; // a longer code, a flagged symbol, or a code not whole in the window
      }
      int t = (e >>> 8) & 0xFF;
      if (t == EOB) {
        eob = EOB;
      } else if (moved + t >= 64) {
        break; // could reach the block's end: leave it to the one-symbol path
      } else {
        moved += t;
      }
      len += e & 0xFF;
    }
    return len == 0 ? 0 : (moved + eob) << 8 | len;
  }
}
