package dev.minibatch.shards;

import dev.minibatch.DType;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardColumns.Column;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A scalar between the little-endian bytes of its dtype (how batches and decoded columns hold it)
 * and the number Parquet stores (format 2): read from a row to be written ({@code get…}), and
 * written into a decoded column ({@code put…}). An INT32 value outside an INT8, UINT8, INT16 or
 * UINT16 column's range is a {@link FileFormatException} naming the file, row and column, never a
 * silent wrap.
 */
final class ScalarBytes {
  private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle FLOAT = MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle DOUBLE = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

  private ScalarBytes() {}

  /** A scalar of {@code dtype} stored as INT32: its bytes as the int they hold (sign or zero extended). */
  static int getInt(byte[] b, DType dtype) {
    return switch (dtype) {
      case INT8 -> b[0];
      case UINT8 -> b[0] & 0xFF;
      case INT16 -> (short) SHORT.get(b, 0);
      case UINT16 -> (short) SHORT.get(b, 0) & 0xFFFF;
      default -> (int) INT.get(b, 0);
    };
  }

  static long getLong(byte[] b) {
    return (long) LONG.get(b, 0);
  }

  static float getFloat(byte[] b) {
    return (float) FLOAT.get(b, 0);
  }

  static double getDouble(byte[] b) {
    return (double) DOUBLE.get(b, 0);
  }

  static void putInt(int v, byte[] out, int at, Column c, String where, long row) {
    switch (c.dtype()) {
      case INT8 -> out[at] = (byte) inRange(v, Byte.MIN_VALUE, Byte.MAX_VALUE, c, where, row);
      case UINT8 -> out[at] = (byte) inRange(v, 0, 255, c, where, row);
      case INT16 -> SHORT.set(out, at, (short) inRange(v, Short.MIN_VALUE, Short.MAX_VALUE, c, where, row));
      case UINT16 -> SHORT.set(out, at, (short) inRange(v, 0, 65_535, c, where, row));
      default -> INT.set(out, at, v);
    }
  }

  static void putLong(long v, byte[] out, int at) {
    LONG.set(out, at, v);
  }

  static void putFloat(float v, byte[] out, int at) {
    FLOAT.set(out, at, v);
  }

  static void putDouble(double v, byte[] out, int at) {
    DOUBLE.set(out, at, v);
  }

  private static int inRange(int v, int min, int max, Column c, String where, long row) {
    if (v < min || v > max) {
      throw new FileFormatException(where, "row " + row + " (of the file), column '" + c.name() + "': " + v
          + ", expected " + c.dtype() + " in [" + min + ", " + max + "]");
    }
    return v;
  }
}
