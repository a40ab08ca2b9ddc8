package dev.minibatch.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.DType;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link Collate#padRow(DType, double)}, the one step-padding rule generated collate code and shard
 * sets pad variable steps by: the value in the width of the dtype's buffer element, worked out by
 * hand per dtype.
 */
class StepPaddingRuleTest {
  private static byte[] bytes(byte v) {
    byte[] a = new byte[Collate.PAD_CHUNK];
    Arrays.fill(a, v);
    return a;
  }

  @Test
  void eachDtypeTakesTheValueInItsOwnWidth() {
    // 255 = 0xFF: UINT8's 255 is stored as the byte -1; INT8 of 255 wraps to -1 as well.
    assertArrayEquals(bytes((byte) -1), (byte[]) Collate.padRow(DType.UINT8, 255));
    assertArrayEquals(bytes((byte) -1), (byte[]) Collate.padRow(DType.INT8, 255));
    assertArrayEquals(bytes((byte) 1), (byte[]) Collate.padRow(DType.BOOL, 1));
    // 70000 = 0x11170: its low 16 bits are 0x1170 = 4464.
    assertEquals(4464, ((short[]) Collate.padRow(DType.INT16, 70_000))[0]);
    // -1 as UINT16 is 0xFFFF.
    assertEquals(0xFFFF, ((char[]) Collate.padRow(DType.UINT16, -1))[Collate.PAD_CHUNK - 1]);
    // The integer part: 2.9 pads an int column with 2, -2.9 with -2.
    assertEquals(2, ((int[]) Collate.padRow(DType.INT32, 2.9))[0]);
    assertEquals(-2L, ((long[]) Collate.padRow(DType.INT64, -2.9))[0]);
    // Half-float 0.5: sign 0, exponent 14 (0b01110), mantissa 0 = 0x3800.
    assertEquals((short) 0x3800, ((short[]) Collate.padRow(DType.FLOAT16, 0.5))[0]);
    assertEquals(0.1f, ((float[]) Collate.padRow(DType.FLOAT32, 0.1))[0]);
    assertEquals(Float.NaN, ((float[]) Collate.padRow(DType.FLOAT32, Double.NaN))[0]);
    assertEquals(-0.25, ((double[]) Collate.padRow(DType.FLOAT64, -0.25))[0]);
    assertEquals(Collate.PAD_CHUNK, ((double[]) Collate.padRow(DType.FLOAT64, 0)).length);
    assertThrows(IllegalArgumentException.class, () -> Collate.padRow(DType.INFER, 0));
  }
}
