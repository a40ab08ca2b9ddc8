package dev.minibatch.runtime.io.idx;

import dev.minibatch.DType;
import org.jspecify.annotations.Nullable;

/** The element types of the idx format, with their header codes. */
public enum IdxType {
  /** Unsigned byte, code 0x08. */
  UINT8(0x08, 1, DType.UINT8),
  /** Signed byte, code 0x09. */
  INT8(0x09, 1, DType.INT8),
  /** Big-endian 16-bit integer, code 0x0B. */
  INT16(0x0B, 2, DType.INT16),
  /** Big-endian 32-bit integer, code 0x0C. */
  INT32(0x0C, 4, DType.INT32),
  /** Big-endian IEEE float, code 0x0D. */
  FLOAT32(0x0D, 4, DType.FLOAT32),
  /** Big-endian IEEE double, code 0x0E. */
  FLOAT64(0x0E, 8, DType.FLOAT64);

  private final int code;
  private final int byteSize;
  private final DType dtype;

  IdxType(int code, int byteSize, DType dtype) {
    this.code = code;
    this.byteSize = byteSize;
    this.dtype = dtype;
  }

  /** The code in the third header byte. */
  public int code() {
    return code;
  }

  /** Bytes per element. */
  public int byteSize() {
    return byteSize;
  }

  /** The matching minibatch element type. */
  public DType dtype() {
    return dtype;
  }

  /** The type with header code {@code code}, or null if there is none. */
  public static @Nullable IdxType ofCode(int code) {
    for (IdxType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    return null;
  }

  /** The magic number (first four header bytes as a big-endian int) of this type at {@code rank}. */
  public int magic(int rank) {
    return (code << 8) | rank;
  }
}
