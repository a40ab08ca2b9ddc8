package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.engine.MergedProvider;
import dev.minibatch.runtime.engine.ResizedProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nd4j.linalg.factory.Nd4j;

/**
 * MXNet's ResizeIter and PrefetchingIter as wrapper providers, against batch sequences worked out by
 * hand: providers whose row {@code i} holds {@code offset + i}, so a batch shows which samples it
 * holds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResizedAndMergedProviderTest {
  /** {@code n} samples whose data is {@code offset + i} (and label {@code 100 + i}), in order, batches of {@code batch}. */
  static ArrayDataProvider counting(int n, int batch, float offset, boolean withLabel) {
    float[] data = new float[n];
    float[] label = new float[n];
    for (int i = 0; i < n; i++) {
      data[i] = offset + i;
      label[i] = 100 + i;
    }
    ArrayDataProvider.Builder b = ArrayDataProvider.builder().data(Nd4j.createFromArray(data).reshape(n, 1))
        .batchSize(batch);
    if (withLabel) {
      b.label(Nd4j.createFromArray(label));
    }
    return b.build();
  }

  /** The data column of each batch of one epoch, padding excluded. */
  static <B extends Batch> List<List<Integer>> epoch(BatchProvider<B> p) {
    List<List<Integer>> out = new ArrayList<>();
    for (B b : p) {
      List<Integer> rows = new ArrayList<>();
      for (int r = 0; r < b.countSamples(); r++) {
        rows.add((int) b.data().get(0).getFloat(r, 0));
      }
      out.add(rows);
    }
    return out;
  }

  // 10 samples in batches of 3, PARTIAL: [0 1 2] [3 4 5] [6 7 8] [9].
  static final List<Integer> A = List.of(0, 1, 2);
  static final List<Integer> B = List.of(3, 4, 5);
  static final List<Integer> C = List.of(6, 7, 8);
  static final List<Integer> D = List.of(9);

  @Test
  void resizedContinuesAcrossEpochs() {
    try (ResizedProvider<NamedBatch> p = ResizedProvider.of(counting(10, 3, 0, true), 3)) {
      assertEquals(List.of(A, B, C), epoch(p));
      assertEquals(List.of(D, A, B), epoch(p));
      assertEquals(List.of(C, D, A), epoch(p));
    }
  }

  @Test
  void resizedLongerThanTheProviderWrapsIntoItsNextEpoch() {
    try (ResizedProvider<NamedBatch> p = ResizedProvider.of(counting(10, 3, 0, true), 6)) {
      assertEquals(List.of(A, B, C, D, A, B), epoch(p));
      assertEquals(List.of(C, D, A, B, C, D), epoch(p));
    }
  }

  @Test
  void resizedRestartingEachEpochIsMxnetsDefault() {
    try (ResizedProvider<NamedBatch> p = ResizedProvider.create(counting(10, 3, 0, true),
        b -> b.batchesPerEpoch(2).restartEachEpoch(true))) {
      assertEquals(List.of(A, B), epoch(p));
      assertEquals(List.of(A, B), epoch(p));
    }
  }

  @Test
  void resizedFollowsTheWrappedShuffle() {
    // The wrapped provider reshuffles per epoch: a resized run of 8 batches over 2 epochs of 4 is
    // exactly the wrapped provider's first two epochs.
    List<List<Integer>> expected = new ArrayList<>();
    try (ArrayDataProvider plain = ArrayDataProvider.builder().data(Nd4j.arange(10).castTo(org.nd4j.linalg.api.buffer.DataType.FLOAT)
        .reshape(10, 1)).batchSize(3).shuffle(true).seed(5).build()) {
      expected.addAll(epoch(plain));
      expected.addAll(epoch(plain));
    }
    try (ResizedProvider<NamedBatch> p = ResizedProvider.of(ArrayDataProvider.builder()
        .data(Nd4j.arange(10).castTo(org.nd4j.linalg.api.buffer.DataType.FLOAT).reshape(10, 1)).batchSize(3)
        .shuffle(true).seed(5).build(), 8)) {
      assertEquals(expected, epoch(p));
    }
  }

  @Test
  void resizedRejectsNoBatches() {
    assertThrows(IllegalArgumentException.class, () -> ResizedProvider.of(counting(10, 3, 0, true), 0));
  }

  @Test
  void mergedBatchHoldsEveryProvidersArraysUnderTheirNewNames() {
    for (boolean prefetch : new boolean[] {true, false}) {
      try (MergedProvider m = MergedProvider.builder().prefetch(prefetch)
          .add(counting(10, 4, 0, true))
          .add(counting(10, 4, 200, true), Map.of("data", "data2", "softmax_label", "label2"))
          .build()) {
        assertEquals(List.of("data", "data2", "softmax_label", "label2"), m.layout().names());
        assertEquals(4, m.batchSize());
        List<int[]> rows = new ArrayList<>();
        for (NamedBatch b : m) {
          int n = b.countSamples();
          int[] r = new int[4 * n];
          for (int i = 0; i < n; i++) {
            r[i] = (int) b.get("data").getFloat(i, 0);
            r[n + i] = (int) b.get("data2").getFloat(i, 0);
            r[2 * n + i] = (int) b.get("softmax_label").getFloat(i);
            r[3 * n + i] = (int) b.get("label2").getFloat(i);
          }
          rows.add(r);
        }
        assertEquals(3, rows.size(), "10 samples in batches of 4: 4, 4, 2");
        assertArrayEquals(new int[] {0, 1, 2, 3, 200, 201, 202, 203, 100, 101, 102, 103, 100, 101, 102, 103}, rows.get(0));
        assertArrayEquals(new int[] {4, 5, 6, 7, 204, 205, 206, 207, 104, 105, 106, 107, 104, 105, 106, 107}, rows.get(1));
        assertArrayEquals(new int[] {8, 9, 208, 209, 108, 109, 108, 109}, rows.get(2));
      }
    }
  }

  @Test
  void mergedFailsClearlyWhenBatchCountsDiffer() {
    for (boolean prefetch : new boolean[] {true, false}) {
      try (MergedProvider m = MergedProvider.builder().prefetch(prefetch).add(counting(10, 4, 0, false))
          .add(counting(8, 4, 200, false), Map.of("data", "other")).build()) {
        BatchIterator<NamedBatch> it = m.iterator();
        it.next();
        it.next();
        IllegalStateException e = assertThrows(IllegalStateException.class, it::hasNext);
        assertTrue(e.getMessage().contains("batch counts differ: provider 1 (ArrayDataProvider) ended after 2 batches "
            + "while provider 0 (ArrayDataProvider) has more"), e.getMessage());
        it.close();
      }
    }
  }

  @Test
  void mergedRejectsClashingNamesAndUnknownRenames() {
    IllegalArgumentException clash = assertThrows(IllegalArgumentException.class,
        () -> MergedProvider.builder().add(counting(4, 2, 0, false)).add(counting(4, 2, 0, false)).build());
    assertTrue(clash.getMessage().contains("two providers provide 'data'"), clash.getMessage());
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> MergedProvider.builder().add(counting(4, 2, 0, false), Map.of("image", "x")).build());
    assertTrue(unknown.getMessage().contains("has no array 'image' to rename; its arrays are [data]"), unknown.getMessage());
    IllegalArgumentException sizes = assertThrows(IllegalArgumentException.class,
        () -> MergedProvider.builder().add(counting(4, 2, 0, false)).add(counting(4, 3, 0, false), Map.of("data", "b")).build());
    assertTrue(sizes.getMessage().contains("batch size 2 but provider 1 (ArrayDataProvider) has 3"), sizes.getMessage());
  }
}
