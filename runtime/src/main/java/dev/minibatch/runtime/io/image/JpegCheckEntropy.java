package dev.minibatch.runtime.io.image;

import static dev.minibatch.runtime.io.image.JpegCheckHuffman.EOB;
import static dev.minibatch.runtime.io.image.JpegCheckHuffman.LOOK;
import static dev.minibatch.runtime.io.image.JpegCheckHuffman.RUN;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Reads one sequential Huffman scan's entropy-coded data as libjpeg does, symbol by symbol, without
 * computing a coefficient: {@link JpegCheck} sets the scan's layout and calls {@link #scan}, which
 * says where the data ends or what is wrong with it ({@link JpegCheck} words the message).
 *
 * <p>The bit reader, as libjpeg's: 0xFF00 in the data is a 0xFF byte (fill 0xFFs before it are
 * dropped); any other 0xFF pair is a marker, which ends the data; past the end it reads zeros and
 * counts them, and the data was too short exactly when a symbol needed one of those zeros.
 */
final class JpegCheckEntropy {
  private static final VarHandle BIG_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  /**
   * Scans with fewer blocks use {@link JpegCheckHuffman#NO_RUN} rather than build the several-symbol
   * tables, unless the image's AC table repeats the last image's (the tables are then kept).
   */
  private static final int RUN_TABLE_BLOCKS = 1024;
  static final int MAX_BLOCKS_IN_MCU = 10;

  /** What {@link #scan} found, when it returns a negative number. */
  static final int PREMATURE_END = -1;
  static final int EXTRANEOUS = -2;
  static final int BAD_CODE = -3;
  static final int WRONG_RESTART = -4;
  static final int IMPOSSIBLE = -5;
  static final int NO_MARKER = -6;

  /** What {@link #IMPOSSIBLE} found. */
  static final int PAST_63 = 1;
  static final int DC_CATEGORY = 2;
  static final int AC_CATEGORY = 3;
  static final int UNDEFINED_AC = 4;

  private static final byte[] NONE = new byte[0];

  // The image.
  private byte[] data = NONE;
  private int end;

  // The scan's layout, set by JpegCheck: per block of an MCU, its tables and component.
  final JpegCheckHuffman[] dcTable = new JpegCheckHuffman[MAX_BLOCKS_IN_MCU];
  final JpegCheckHuffman[] acTable = new JpegCheckHuffman[MAX_BLOCKS_IN_MCU];
  final int[] component = new int[MAX_BLOCKS_IN_MCU];
  int blocksInMcu;
  int mcus;
  int restartInterval;
  int maxDcCategory;
  int maxAcCategory;

  private final int[][] dcLook = new int[MAX_BLOCKS_IN_MCU][];
  private final int[][] acLook = new int[MAX_BLOCKS_IN_MCU][];
  private final int[][] acRun = new int[MAX_BLOCKS_IN_MCU][];
  private final int[][] acStart = new int[MAX_BLOCKS_IN_MCU][];

  // The bit reader: the top `bits` bits of `acc` are unread, oldest first, and the bits below them
  // zero or the next byte's first bits (read again later); the last `zeroBits` of the `bits` are the
  // zeros read after the data ended.
  private long acc;
  private int bits;
  private int zeroBits;
  /** The next byte to read; {@link #stop} is where the data ends (a marker, or the end). */
  private int pos;
  private int stop;

  // Where it stopped, and what it found.
  /** Where the marker that ends the data starts (its first 0xFF), or -1 until it is found. */
  int markerAt;
  /** That marker's code, or -1 for the end of the bytes. */
  int markerCode;
  private int afterMarker;
  /** The MCU (from 0) being read when the problem was found, or the MCUs read before a marker. */
  int mcu;
  /** The block of that MCU. */
  int block;
  /** For {@link #IMPOSSIBLE}: which, and the symbol. */
  int impossible;
  int symbol;
  /** For {@link #BAD_CODE}: whether the table was a DC table. */
  boolean badDc;
  /** For {@link #EXTRANEOUS}: how many bytes, from where. */
  int leftBytes;
  int leftFrom;
  /** For {@link #WRONG_RESTART}: the restart marker's number expected. */
  int restartExpected;

  /** The image the scans are in: {@code data[.., end)}. */
  void image(byte[] data, int end) {
    this.data = data;
    this.end = end;
  }

  /** Lets go of the image's array. */
  void release() {
    data = NONE;
  }

  /**
   * Reads the scan's data from {@code p}: the position of the marker after it, or a negative
   * code saying what is wrong (the fields say where).
   */
  int scan(int p) {
    pos = p;
    stop = end;
    markerAt = -1;
    markerCode = -1;
    acc = 0;
    bits = 0;
    zeroBits = 0;
    boolean buildRun = (long) mcus * blocksInMcu >= RUN_TABLE_BLOCKS;
    for (int b = 0; b < blocksInMcu; b++) {
      dcLook[b] = dcTable[b].look;
      acLook[b] = acTable[b].look;
      acRun[b] = acTable[b].run(buildRun || acTable[b].repeated);
      acStart[b] = acTable[b].start(dcTable[b], buildRun || (acTable[b].repeated && dcTable[b].repeated));
    }
    int restart = 0;
    int m = 0;
    while (true) {
      int to = restartInterval > 0 ? Math.min(mcus, m + restartInterval) : mcus;
      int r = mcus(m, to);
      if (r < 0) {
        return r;
      }
      m = to;
      if (m == mcus) {
        break;
      }
      r = endOfData(m);
      if (r < 0) {
        return r;
      }
      if (markerCode != 0xD0 + restart) {
        mcu = m;
        restartExpected = restart;
        return markerCode < 0 ? PREMATURE_END : WRONG_RESTART;
      }
      restart = (restart + 1) & 7;
      pos = afterMarker;
      stop = end;
      markerAt = -1;
      markerCode = -1;
      acc = 0;
      bits = 0;
      zeroBits = 0;
    }
    int r = endOfData(mcus);
    if (r < 0) {
      return r;
    }
    mcu = mcus;
    return markerCode < 0 ? NO_MARKER : markerAt;
  }

  /**
   * MCUs {@code from} to {@code to - 1}: 0, or a negative code. The hot loop: the bit reader's
   * state lives in locals and goes back to the fields only around the rare calls (a refill that
   * meets 0xFF, a long code, a symbol to look at closely, a problem).
   */
  private int mcus(int from, int to) {
    final byte[] d = data;
    final int blocks = blocksInMcu;
    long acc = this.acc;
    int bits = this.bits;
    int pos = this.pos;
    int stop = this.stop;
    for (int m = from; m < to; m++) {
      for (int b = 0; b < blocks; b++) {
        if (bits < 32) {
          long w;
          if (pos + 8 <= stop && noFF(w = (long) BIG_ENDIAN_LONG.get(d, pos))) {
            // Whole bytes below the unread bits; the part of a byte that does not fit is read again.
            acc |= w >>> bits;
            int n = (64 - bits) >>> 3;
            pos += n;
            bits += n << 3;
          } else {
            this.acc = acc;
            this.bits = bits;
            this.pos = pos;
            refill();
            acc = this.acc;
            bits = this.bits;
            pos = this.pos;
            stop = this.stop;
          }
        }
        // The DC symbol and the first AC symbols at once, when they fit the block-start table.
        int e = acStart[b][(int) (acc >>> (64 - RUN))];
        int k = 1;
        if (e != 0) {
          int n = e & 0xFF;
          acc <<= n;
          bits -= n;
          k += (e >>> 8) & 0xFF;
        } else if ((e = dcLook[b][(int) (acc >>> (64 - LOOK))]) > 0) {
          int n = e & 0xFF;
          acc <<= n;
          bits -= n;
        } else {
          this.acc = acc;
          this.bits = bits;
          this.pos = pos;
          int r = dcSymbol(e, m, b);
          if (r < 0) {
            return r;
          }
          acc = this.acc;
          bits = this.bits;
        }
        final int[] look = acLook[b];
        final int[] run = acRun[b];
        while (k < 64) {
          if (bits < 32) {
            long w;
            if (pos + 8 <= stop && noFF(w = (long) BIG_ENDIAN_LONG.get(d, pos))) {
              acc |= w >>> bits;
              int n = (64 - bits) >>> 3;
              pos += n;
              bits += n << 3;
            } else {
              this.acc = acc;
              this.bits = bits;
              this.pos = pos;
              refill();
              acc = this.acc;
              bits = this.bits;
              pos = this.pos;
              stop = this.stop;
            }
          }
          e = run[(int) (acc >>> (64 - RUN))];
          int t = (e >>> 8) & 0xFF;
          if (e != 0 && k + (t & (EOB - 1)) < 64) {
            int n = e & 0xFF;
            acc <<= n;
            bits -= n;
            k += t;
            continue;
          }
          e = look[(int) (acc >>> (64 - LOOK))];
          if (e > 0) {
            int n = e & 0xFF;
            acc <<= n;
            bits -= n;
            k += (e >>> 8) & 0xFF;
          } else {
            this.acc = acc;
            this.bits = bits;
            this.pos = pos;
            int advance = acSymbol(e, m, b);
            if (advance < 0) {
              return advance;
            }
            acc = this.acc;
            bits = this.bits;
            k += advance;
          }
        }
        if (k > 64 && k < EOB) {
          this.acc = acc;
          this.bits = bits;
          this.pos = pos;
          return impossible(m, b, PAST_63, 0);
        }
      }
      if (bits < zeroBits) {
        this.acc = acc;
        this.bits = bits;
        this.pos = pos;
        mcu = m;
        return PREMATURE_END;
      }
    }
    this.acc = acc;
    this.bits = bits;
    this.pos = pos;
    return 0;
  }

  /** True if none of the eight bytes of {@code w} is 0xFF. */
  private static boolean noFF(long w) {
    return ((~w - 0x0101010101010101L) & w & 0x8080808080808080L) == 0;
  }

  /** A DC symbol {@code e} does not settle (0: a longer code; else flagged): 0 or a negative code. */
  private int dcSymbol(int e, int m, int b) {
    int sym;
    if (e == 0) {
      sym = longCode(dcTable[b], m, b);
      if (sym < 0) {
        return sym;
      }
    } else {
      sym = (e >>> 16) & 0xFF;
      consume(e & 0xFF);
    }
    return sym > maxDcCategory ? impossible(m, b, DC_CATEGORY, sym) : 0;
  }

  /**
   * An AC symbol {@code e} does not settle: how far it moves the position in the block ({@link
   * JpegCheckHuffman#EOB} for end-of-block), or a negative code.
   */
  private int acSymbol(int e, int m, int b) {
    int sym;
    if (e == 0) {
      sym = longCode(acTable[b], m, b);
      if (sym < 0) {
        return sym;
      }
    } else {
      sym = (e >>> 16) & 0xFF;
      consume(e & 0xFF);
    }
    int s = sym & 15;
    if (s != 0) {
      return s > maxAcCategory ? impossible(m, b, AC_CATEGORY, sym) : (sym >>> 4) + 1;
    }
    return sym == 0 ? EOB : sym == 0xF0 ? 16 : impossible(m, b, UNDEFINED_AC, sym);
  }

  /** A code longer than the lookahead: consumes it and its magnitude bits; its symbol or a negative code. */
  private int longCode(JpegCheckHuffman t, int m, int b) {
    int c = t.longCode((int) (acc >>> 48));
    if (c < 0) {
      mcu = m;
      block = b;
      badDc = t.dc;
      // libjpeg reads up to 17 bits before it gives up: if they are not all there, it warns of the
      // data's end first.
      return bits - 17 < zeroBits ? PREMATURE_END : BAD_CODE;
    }
    int sym = c & 0xFF;
    consume((c >>> 8) + (sym & 15));
    return sym;
  }

  private void consume(int n) {
    acc <<= n;
    bits -= n;
  }

  private int impossible(int m, int b, int what, int sym) {
    mcu = m;
    block = b;
    if (bits < zeroBits) {
      return PREMATURE_END; // a symbol made of the zeros read after the data
    }
    impossible = what;
    symbol = sym;
    return IMPOSSIBLE;
  }

  /** The byte that holds the next unread bit (counting a stuffed 0xFF00 as one byte), for messages. */
  int here() {
    return Math.max(0, Math.min(stop, pos) - (Math.max(0, bits - zeroBits) + 7) / 8);
  }

  /**
   * After the last MCU of a scan or restart interval: the rest of the current byte is padding, but
   * a whole byte left before the next marker is extraneous (libjpeg counts it). Finds the marker.
   */
  private int endOfData(int m) {
    int buffered = (bits - zeroBits) / 8;
    int read = pos;
    int left = buffered;
    if (markerAt < 0) {
      left += findMarker();
    }
    if (left > 0) {
      mcu = m;
      leftBytes = left;
      leftFrom = unread(read, buffered);
      return EXTRANEOUS;
    }
    return 0;
  }

  /** Reads on from {@link #pos} to the next marker, recording it; the data bytes passed. */
  private int findMarker() {
    int n = 0;
    int q = pos;
    while (true) {
      while (q < end && data[q] != (byte) 0xFF) {
        q++;
        n++;
      }
      int ff = q;
      while (q < end && data[q] == (byte) 0xFF) {
        q++;
      }
      if (q >= end) {
        endOfBytes();
        return n;
      }
      if (data[q] != 0) {
        markerAt = ff;
        markerCode = data[q] & 0xFF;
        afterMarker = q + 1;
        return n;
      }
      q++;
      n++;
    }
  }

  private void endOfBytes() {
    markerAt = end;
    markerCode = -1;
    afterMarker = end;
  }

  /**
   * Where the first of the last {@code n} data bytes read before {@code p} starts: back over plain
   * bytes and over 0xFF00 pairs (with any fill 0xFFs before them).
   */
  private int unread(int p, int n) {
    int q = p;
    for (int i = 0; i < n; i++) {
      if (q >= 2 && data[q - 1] == 0 && data[q - 2] == (byte) 0xFF) {
        q -= 2;
        while (q >= 1 && data[q - 1] == (byte) 0xFF) {
          q--;
        }
      } else {
        q--;
      }
    }
    return q;
  }

  /**
   * Fills {@link #acc} to more than 56 bits a byte at a time, through stuffed 0xFFs, up to the
   * marker or the end of the bytes; after them, with zeros counted in {@link #zeroBits}.
   */
  private void refill() {
    while (bits <= 56) {
      int c = 0;
      if (pos < stop) {
        c = data[pos] & 0xFF;
        if (c != 0xFF) {
          pos++;
        } else {
          int q = pos + 1;
          while (q < end && data[q] == (byte) 0xFF) {
            q++;
          }
          if (q < end && data[q] == 0) {
            pos = q + 1;
          } else {
            if (q < end) {
              markerAt = pos;
              markerCode = data[q] & 0xFF;
              afterMarker = q + 1;
            } else {
              endOfBytes();
            }
            stop = pos;
            c = 0;
            zeroBits += 8;
          }
        }
      } else {
        if (markerAt < 0) {
          endOfBytes();
        }
        zeroBits += 8;
      }
      acc |= (long) c << (56 - bits);
      bits += 8;
    }
  }
}
