package dev.minibatch.shards;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardColumns.Column;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A scalar read from its Parquet type (format 2), written into a decoded column as the batch holds
 * it: little-endian, in the column's dtype. An INT32 value outside an INT8, UINT8, INT16 or UINT16
 * column's range is a {@link FileFormatException} naming the file, row and column, never a silent
 * wrap.
 */
final class ScalarBytes {
  private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle FLOAT = MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle DOUBLE = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

  private ScalarBytes() {}

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
