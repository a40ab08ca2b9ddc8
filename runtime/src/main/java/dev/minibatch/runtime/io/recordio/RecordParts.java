package dev.minibatch.runtime.io.recordio;

import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;

/**
 * The framing of one RecordIO part: {@code [magic][lrecord][payload][zero padding to 4 bytes]},
 * little-endian, where {@code lrecord} holds the continuation flag in its top 3 bits and the
 * payload length in the low 29.
 */
final class RecordParts {
  /** The magic word that starts every part (dmlc's {@code RecordIOWriter::kMagic}). */
  static final int MAGIC = 0xCED7230A;
  /** Bytes before a part's payload. */
  static final int HEADER = 8;
  /** The largest payload of one part: the length field has 29 bits. */
  static final int MAX_PART = (1 << 29) - 1;
  /** A whole record in one part. */
  static final int WHOLE = 0;
  /** The first part of a record split at a magic word in its payload. */
  static final int FIRST = 1;
  /** A part between the first and the last. */
  static final int MIDDLE = 2;
  /** The last part of a split record. */
  static final int LAST = 3;

  private RecordParts() {}

  static int flag(int lrecord) {
    return lrecord >>> 29;
  }

  static int length(int lrecord) {
    return lrecord & MAX_PART;
  }

  static int lrecord(int flag, int length) {
    return flag << 29 | length;
  }

  /** The payload length rounded up to the 4-byte alignment of the next part. */
  static long padded(int length) {
    return (length + 3L) & ~3L;
  }

  static String flagName(int flag) {
    return switch (flag) {
      case WHOLE -> "0 (whole record)";
      case FIRST -> "1 (first part)";
      case MIDDLE -> "2 (middle part)";
      case LAST -> "3 (last part)";
      default -> flag + " (not a RecordIO flag)";
    };
  }
}
