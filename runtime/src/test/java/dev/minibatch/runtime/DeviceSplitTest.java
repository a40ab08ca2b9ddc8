package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch.SlicedNDArray;
import dev.minibatch.runtime.array.ArrayDataProvider;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Splitting batches across devices, as MXNet.jl's _split_inputs and MXNet's _split_input_slice. */
class DeviceSplitTest {
  @Test
  void evenSplitGivesTheFirstPartsOneMore() {
    assertEquals(List.of(new SampleRange(0, 4), new SampleRange(4, 7), new SampleRange(7, 10)), BatchSplitter.even(10, 3));
    assertEquals(List.of(new SampleRange(0, 5), new SampleRange(5, 10)), BatchSplitter.even(10, 2));
  }

  @Test
  void weightedSplitFollowsMxnetRounding() {
    // 8 rows, loads 1:3 -> round(2.0)=2, round(6.0)=6.
    assertEquals(List.of(new SampleRange(0, 2), new SampleRange(2, 8)), BatchSplitter.weighted(8, 1, 3));
    // 10 rows, 1:1:1 -> 3,3,3 (sum 9), the last takes the remainder.
    assertEquals(List.of(new SampleRange(0, 3), new SampleRange(3, 6), new SampleRange(6, 10)), BatchSplitter.weighted(10, 1, 1, 1));
    // 5 rows, 1:1 -> round(2.5) = 2 twice (half to even, like Python), the last takes 3.
    assertEquals(List.of(new SampleRange(0, 2), new SampleRange(2, 5)), BatchSplitter.weighted(5, 1, 1));
  }

  @Test
  void aSplitLeavingADeviceEmptyIsRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BatchSplitter.even(2, 3));
    assertEquals("cannot split a batch of 2 rows across 3 devices: 1 device(s) would get no samples; "
        + "use a batch of at least 3 rows or fewer devices", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> BatchSplitter.weighted(3, 1, 100));
    assertEquals("cannot split a batch of 3 rows by work loads [1.0, 100.0]: device 0 would get no samples", e.getMessage());
    assertEquals("work load weight 1 must be a finite number > 0, got -1.0",
        assertThrows(IllegalArgumentException.class, () -> BatchSplitter.weighted(3, 1, -1)).getMessage());
    assertEquals("work load weight 0 must be a finite number > 0, got Infinity", assertThrows(
        IllegalArgumentException.class, () -> BatchSplitter.weighted(3, Double.POSITIVE_INFINITY, 1)).getMessage());
    assertEquals("parts must be >= 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> BatchSplitter.even(3, 0)).getMessage());
  }

  private static ArrayDataProvider provider() {
    INDArray x = Nd4j.arange(10 * 3).castTo(DataType.FLOAT).reshape(10, 3);
    INDArray y = Nd4j.arange(10).castTo(DataType.INT32);
    return ArrayDataProvider.builder().data(x).label(y).batchSize(7).lastBatch(LastBatch.PAD_CONSTANT).labelPadding(-1).build();
  }

  @Test
  void splitCopiesExactlyTheRightRows() {
    try (ArrayDataProvider p = provider()) {
      BatchIterator<NamedBatch> it = p.iterator();
      NamedBatch first = it.next();
      List<NamedBatch> two = first.split(List.of(Device.cpu(0), Device.cpu(1)));
      assertArrayEquals(new int[] {0, 1, 2, 3}, two.get(0).label().get(0).toIntVector());
      assertArrayEquals(new int[] {4, 5, 6}, two.get(1).label().get(0).toIntVector());
      assertEquals(Nd4j.arange(12, 21).castTo(DataType.FLOAT).reshape(3, 3), two.get(1).data().get(0));

      List<NamedBatch> three = first.split(List.of(Device.cpu(0), Device.cpu(1), Device.cpu(2)));
      assertEquals(List.of(3, 2, 2), three.stream().map(Batch::rows).toList());
      assertArrayEquals(new long[] {5, 6}, three.get(2).sampleIndices());

      // The second batch has rows 7, 8, 9 and four constant pad rows: the pad follows the rows.
      NamedBatch second = it.next();
      assertEquals(4, second.pad());
      List<NamedBatch> weighted = second.split(List.of(Device.cpu(0), Device.cpu(1)), 3, 4);
      assertEquals(List.of(3, 4), weighted.stream().map(Batch::rows).toList());
      assertEquals(List.of(0, 4), weighted.stream().map(Batch::pad).toList());
      assertEquals(List.of(3, 0), weighted.stream().map(Batch::countSamples).toList());
      assertArrayEquals(new int[] {-1, -1, -1, -1}, weighted.get(1).label().get(0).toIntVector());
    }
  }

  @Test
  void loadDataCopiesRangesIntoTargets() {
    try (ArrayDataProvider p = provider()) {
      NamedBatch b = p.iterator().next();
      INDArray t0 = Nd4j.zeros(DataType.FLOAT, 4, 3);
      INDArray t1 = Nd4j.zeros(DataType.FLOAT, 3, 3);
      b.loadData(List.of(List.of(new SlicedNDArray(0, 4, t0), new SlicedNDArray(4, 7, t1))));
      assertEquals(Nd4j.arange(0, 12).castTo(DataType.FLOAT).reshape(4, 3), t0);
      assertEquals(Nd4j.arange(12, 21).castTo(DataType.FLOAT).reshape(3, 3), t1);
      INDArray l = Nd4j.zeros(DataType.INT32, 2);
      b.loadLabel(List.of(List.of(new SlicedNDArray(5, 7, l))));
      assertArrayEquals(new int[] {5, 6}, l.toIntVector());

      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> b.loadData(List.of(List.of(new SlicedNDArray(0, 2, Nd4j.zeros(DataType.FLOAT, 3, 3))))));
      assertEquals("target for 'data' rows [0, 2) has shape [3, 3], expected [2, 3]", e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> b.loadData(List.of()));
      assertEquals("expected one list of targets per data array (1: [data]), got 0", e.getMessage());
    }
  }

  @Test
  void gpuPlacementOnTheCpuBackendSaysWhatIsMissing() {
    try (ArrayDataProvider p = provider()) {
      NamedBatch b = p.iterator().next();
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> b.split(List.of(Device.gpu(0))));
      assertEquals(true, e.getMessage().startsWith("gpu(0) requested, but ND4J runs on"), e.getMessage());
    }
  }
}
