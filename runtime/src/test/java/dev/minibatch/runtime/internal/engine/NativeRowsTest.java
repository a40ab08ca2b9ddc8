package dev.minibatch.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The gather on both of its paths, raw addresses (JDK 17 to 23) and direct buffers (JDK 24 on),
 * against values known by construction: element {@code (r, c)} of a source holds {@code base + r *
 * cols + c}, so every copied row names the row it came from.
 */
class NativeRowsTest {
  static INDArray counting(int rows, int cols, float base) {
    float[] v = new float[rows * cols];
    for (int i = 0; i < v.length; i++) {
      v[i] = base + i;
    }
    return Nd4j.create(v, new long[] {rows, cols}, 'c');
  }

  /** The paths this JDK has: buffers always, raw copies on JDK 17 to 23. */
  static Stream<Boolean> paths() {
    return RawMemory.AVAILABLE ? Stream.of(true, false) : Stream.of(false);
  }

  @Test
  void rawCopiesAreTakenExactlyWhereTheJdkAllowsThemQuietly() {
    assertEquals(Runtime.version().feature() < 24, RawMemory.AVAILABLE);
  }

  @ParameterizedTest
  @MethodSource("paths")
  void gathersTheRowsOfEveryArrayInIndexOrderIncludingRunsOfConsecutiveIndices(boolean raw) {
    INDArray features = counting(50, 7, 0);
    INDArray labels = counting(50, 3, 10_000);
    INDArray outF = Nd4j.create(DataType.FLOAT, 8, 7);
    INDArray outL = Nd4j.create(DataType.FLOAT, 8, 3);
    // Rows 2..5 of the destination: a random pick, then a run of three consecutive samples, then
    // the last sample of the source (a run may not pass the sources' end).
    int[] indices = {-9, -9, 41, 7, 8, 9, 49, 0};
    NativeRows.gather(new NativeRows[] {NativeRows.of(features), NativeRows.of(labels)}, indices, 2, 7,
        new NativeRows[] {NativeRows.of(outF), NativeRows.of(outL)}, raw);
    for (int r = 0; r < 8; r++) {
      for (int c = 0; c < 7; c++) {
        float want = r >= 2 && r < 7 ? indices[r] * 7 + c : 0;
        assertEquals(want, outF.getFloat(r, c), "features row " + r + " col " + c);
      }
      for (int c = 0; c < 3; c++) {
        float want = r >= 2 && r < 7 ? 10_000 + indices[r] * 3 + c : 0;
        assertEquals(want, outL.getFloat(r, c), "labels row " + r + " col " + c);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("paths")
  void oneOrThreeArraysGoThroughTheSameRowsAsAPair(boolean raw) {
    int[] indices = {12, 13, 3, 39, 0};
    INDArray a = counting(40, 5, 0);
    INDArray b = counting(40, 1, 500);
    INDArray c = counting(40, 2, 900);
    INDArray outA = Nd4j.create(DataType.FLOAT, 5, 5);
    INDArray outB = Nd4j.create(DataType.FLOAT, 5, 1);
    INDArray outC = Nd4j.create(DataType.FLOAT, 5, 2);
    NativeRows.gather(new NativeRows[] {NativeRows.of(a), NativeRows.of(b), NativeRows.of(c)}, indices, 0, 5,
        new NativeRows[] {NativeRows.of(outA), NativeRows.of(outB), NativeRows.of(outC)}, raw);
    INDArray alone = Nd4j.create(DataType.FLOAT, 5, 2);
    NativeRows.gather(new NativeRows[] {NativeRows.of(c)}, indices, 0, 5, new NativeRows[] {NativeRows.of(alone)}, raw);
    for (int r = 0; r < 5; r++) {
      for (int k = 0; k < 5; k++) {
        assertEquals(indices[r] * 5 + k, outA.getFloat(r, k), "a row " + r);
      }
      assertEquals(500 + indices[r], outB.getFloat(r, 0), "b row " + r);
      for (int k = 0; k < 2; k++) {
        assertEquals(900 + indices[r] * 2 + k, outC.getFloat(r, k), "c row " + r);
        assertEquals(900 + indices[r] * 2 + k, alone.getFloat(r, k), "c alone row " + r);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("paths")
  void anIndexOutsideTheSourcesIsNamedAndNothingAfterItIsCopied(boolean raw) {
    INDArray features = counting(10, 4, 0);
    INDArray out = Nd4j.create(DataType.FLOAT, 4, 4);
    int[] indices = {3, 10, 5, 6};
    IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> NativeRows.gather(
        new NativeRows[] {NativeRows.of(features)}, indices, 0, 4, new NativeRows[] {NativeRows.of(out)}, raw));
    assertEquals("sample index 10 outside [0, 10)", e.getMessage());
    assertEquals(12f, out.getFloat(0, 0), "the row before the bad index is copied");
    assertEquals(0f, out.getFloat(2, 0), "no row after it");
    assertThrows(IndexOutOfBoundsException.class, () -> NativeRows.gather(new NativeRows[] {NativeRows.of(features)},
        new int[] {-1}, 0, 1, new NativeRows[] {NativeRows.of(out)}, raw));
  }

  @ParameterizedTest
  @MethodSource("paths")
  void aRowRangeOutsideTheDestinationIsRefusedBeforeAnyCopy(boolean raw) {
    INDArray features = counting(10, 4, 0);
    INDArray out = Nd4j.create(DataType.FLOAT, 2, 4);
    IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> NativeRows.gather(
        new NativeRows[] {NativeRows.of(features)}, new int[] {1, 2, 3}, 0, 3, new NativeRows[] {NativeRows.of(out)},
        raw));
    assertEquals("rows [0, 3) outside the destination's [0, 2)", e.getMessage());
    assertEquals(0f, out.getFloat(0, 0));
  }
}
