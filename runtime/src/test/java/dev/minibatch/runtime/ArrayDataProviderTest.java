package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.LastBatch;
import dev.minibatch.Role;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shape.Shape;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * ArrayDataProvider against the documented behaviour of MXNet's NDArrayIter / MXNet.jl's
 * ArrayDataProvider, with hand-computed expectations. Data row i holds (i, 100 + i) and label row i
 * holds 1000 + i, so every row says which sample it came from and whether data and label agree.
 */
class ArrayDataProviderTest {
  private static final int N = 10;

  static INDArray data(int n) {
    float[][] d = new float[n][2];
    for (int i = 0; i < n; i++) {
      d[i][0] = i;
      d[i][1] = 100 + i;
    }
    return Nd4j.create(d);
  }

  static INDArray labels(int n) {
    return Nd4j.createFromArray(IntStream.range(0, n).map(i -> 1000 + i).toArray());
  }

  static ArrayDataProvider provider(int n, Consumer<ArrayDataProvider.Builder> settings) {
    return ArrayDataProvider.create(b -> settings.accept(b.data(data(n)).label(labels(n)).batchSize(0)));
  }

  /** The sample ids of each batch of one epoch; checks data/label agreement and sampleIndex. */
  static List<List<Integer>> epoch(BatchProvider<NamedBatch> p) {
    List<List<Integer>> out = new ArrayList<>();
    for (NamedBatch b : p) {
      INDArray x = b.get("data");
      INDArray y = b.get("softmax_label");
      assertEquals(b.rows(), x.size(0));
      assertEquals(b.rows(), y.size(0));
      List<Integer> ids = new ArrayList<>();
      for (int r = 0; r < b.rows(); r++) {
        int id = (int) x.getFloat(r, 0);
        ids.add(id);
        if (b.sampleIndex(r) >= 0) {
          assertEquals(id + 100, (int) x.getFloat(r, 1), "row " + r + " columns disagree");
          assertEquals(id + 1000, y.getInt(r), "row " + r + ": label not aligned with data");
          assertEquals(id, b.sampleIndex(r));
        }
      }
      out.add(ids);
    }
    return out;
  }

  static List<Integer> list(int... v) {
    return IntStream.of(v).boxed().collect(Collectors.toList());
  }

  @Test
  void padWrapFillsFromTheStartEveryEpoch() {
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(3).lastBatch(LastBatch.PAD_WRAP))) {
      for (int e = 0; e < 2; e++) {
        List<Integer> pads = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        List<List<Integer>> ids = new ArrayList<>();
        for (NamedBatch b : p) {
          pads.add(b.pad());
          counts.add(b.countSamples());
          ids.add(IntStream.range(0, b.rows()).map(r -> (int) b.get("data").getFloat(r, 0)).boxed().toList());
        }
        assertEquals(List.of(list(0, 1, 2), list(3, 4, 5), list(6, 7, 8), list(9, 0, 1)), ids);
        assertEquals(List.of(0, 0, 0, 2), pads);
        assertEquals(List.of(3, 3, 3, 1), counts);
      }
    }
  }

  @Test
  void discardDropsTheIncompleteBatch() {
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(3).lastBatch(LastBatch.DISCARD))) {
      assertEquals(List.of(list(0, 1, 2), list(3, 4, 5), list(6, 7, 8)), epoch(p));
      assertEquals(List.of(list(0, 1, 2), list(3, 4, 5), list(6, 7, 8)), epoch(p));
    }
  }

  @Test
  void partialDeliversASmallerLastBatch() {
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(3).lastBatch(LastBatch.PARTIAL))) {
      assertEquals(List.of(list(0, 1, 2), list(3, 4, 5), list(6, 7, 8), list(9)), epoch(p));
    }
  }

  @Test
  void rollOverCarriesLeftoversIntoTheNextEpoch() {
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(3).lastBatch(LastBatch.ROLL_OVER))) {
      assertEquals(List.of(list(0, 1, 2), list(3, 4, 5), list(6, 7, 8)), epoch(p));
      assertEquals(List.of(list(9, 0, 1), list(2, 3, 4), list(5, 6, 7)), epoch(p));
      assertEquals(List.of(list(8, 9, 0), list(1, 2, 3), list(4, 5, 6), list(7, 8, 9)), epoch(p));
      assertEquals(List.of(list(0, 1, 2), list(3, 4, 5), list(6, 7, 8)), epoch(p));
      p.reset(); // forgets the carried [9]
      assertEquals(List.of(list(0, 1, 2), list(3, 4, 5), list(6, 7, 8)), epoch(p));
    }
  }

  @Test
  void padConstantFillsWithThePerNameValue() {
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(3).lastBatch(LastBatch.PAD_CONSTANT)
        .dataPadding(-1).padding("softmax_label", 7))) {
      NamedBatch last = null;
      int batches = 0;
      for (NamedBatch b : p) {
        last = b;
        batches++;
      }
      assertEquals(4, batches);
      assertEquals(2, last.pad());
      assertEquals(1, last.countSamples());
      assertArrayEquals(new float[] {9, 109, -1, -1, -1, -1}, last.get("data").dup().data().asFloat());
      assertArrayEquals(new int[] {1009, 7, 7}, last.get("softmax_label").toIntVector());
      assertArrayEquals(new long[] {9, -1, -1}, last.sampleIndices());
    }
  }

  @Test
  void padLargerThanTheDataTiles() {
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(205).lastBatch(LastBatch.PAD_WRAP))) {
      List<List<Integer>> e = epoch(p);
      assertEquals(1, e.size());
      assertEquals(IntStream.range(0, 205).map(i -> i % 10).boxed().toList(), e.get(0));
      NamedBatch b = p.iterator().next();
      assertEquals(195, b.pad());
      assertEquals(10, b.countSamples());
    }
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(205).lastBatch(LastBatch.PAD_CONSTANT).dataPadding(0.5))) {
      NamedBatch b = p.iterator().next();
      assertEquals(205, b.rows());
      assertEquals(195, b.pad());
      assertEquals(0.5f, b.get("data").getFloat(204, 1));
      assertEquals(9f, b.get("data").getFloat(9, 0));
    }
  }

  @Test
  void batchSizeZeroIsTheWholeSet() {
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(0))) {
      assertEquals(10, p.batchSize());
      assertEquals(List.of(list(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)), epoch(p));
      assertEquals(Shape.of(10, 2), p.provideData().get(0).shape());
    }
  }

  @Test
  void shuffleIsAPermutationPerEpochWithLabelsAligned() {
    try (ArrayDataProvider p = provider(100, b -> b.batchSize(7).shuffle(true).seed(11))) {
      List<Integer> e1 = epoch(p).stream().flatMap(List::stream).toList();
      List<Integer> e2 = epoch(p).stream().flatMap(List::stream).toList();
      List<Integer> all = IntStream.range(0, 100).boxed().toList();
      assertEquals(all, e1.stream().sorted().toList(), "epoch 1 is not a permutation");
      assertEquals(all, e2.stream().sorted().toList(), "epoch 2 is not a permutation");
      assertNotEquals(all, e1, "shuffle left the order unchanged");
      assertNotEquals(e1, e2, "two epochs drew the same order");
    }
  }

  @Test
  void theSameSeedGivesTheSameEpochs() {
    List<List<List<Integer>>> runs = new ArrayList<>();
    for (long seed : new long[] {5, 5, 6}) {
      try (ArrayDataProvider p = provider(50, b -> b.batchSize(8).shuffle(true).seed(seed).lastBatch(LastBatch.ROLL_OVER))) {
        List<List<Integer>> epochs = new ArrayList<>();
        for (int e = 0; e < 3; e++) {
          epochs.add(epoch(p).stream().flatMap(List::stream).toList());
        }
        runs.add(epochs);
      }
    }
    assertEquals(runs.get(0), runs.get(1));
    assertNotEquals(runs.get(0), runs.get(2));
  }

  @Test
  void severalNamedArraysKeepOrderShapesAndTypes() {
    INDArray a = Nd4j.arange(10 * 2 * 3).castTo(DataType.FLOAT).reshape(10, 2, 3);
    INDArray b = Nd4j.createFromArray(IntStream.range(0, 10).toArray());
    INDArray y = Nd4j.arange(40).castTo(DataType.DOUBLE).reshape(10, 4);
    INDArray z = Nd4j.createFromArray(IntStream.range(0, 10).mapToLong(i -> 10L * i).toArray());
    try (ArrayDataProvider p = ArrayDataProvider.builder()
        .label("y", y).data("a", a).label("z", z).data("b", b).batchSize(4).build()) {
      assertEquals(List.of(
              DataDesc.of("a", 4, Shape.of(2, 3), DType.FLOAT32, Role.DATA),
              DataDesc.of("b", 4, Shape.scalar(), DType.INT32, Role.DATA)),
          p.provideData());
      assertEquals(List.of(
              DataDesc.of("y", 4, Shape.of(4), DType.FLOAT64, Role.LABEL),
              DataDesc.of("z", 4, Shape.scalar(), DType.INT64, Role.LABEL)),
          p.provideLabel());
      NamedBatch first = p.iterator().next();
      assertEquals(List.of("a", "b", "y", "z"), first.names());
      assertEquals(a.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 4)), first.data().get(0));
      assertEquals(b.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 4)), first.data().get(1));
      assertEquals(y.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 4)), first.label().get(0));
      assertEquals(z.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 4)), first.label().get(1));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> first.get("image"));
      assertEquals("no array named 'image'; this batch provides [a, b, y, z]", e.getMessage());
    }
  }

  @Test
  void javaPrimitiveArraysAreAccepted() {
    float[][] x = {{1, 2}, {3, 4}, {5, 6}};
    int[] y = {0, 1, 0};
    try (ArrayDataProvider p = ArrayDataProvider.builder().data("x", x).label("y", y).batchSize(2).build()) {
      NamedBatch b = p.iterator().next();
      assertArrayEquals(new float[] {1, 2, 3, 4}, b.get("x").dup().data().asFloat());
      assertArrayEquals(new int[] {0, 1}, b.get("y").toIntVector());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ArrayDataProvider.builder().data("x", new float[][] {{1, 2}, {3}}));
    assertEquals("data 'x': ragged array: element [1] has length 1, expected 2 like the first one", e.getMessage());
  }

  @Test
  void shardsAreDisjointAndCoverEverySample() {
    for (boolean shuffle : new boolean[] {false, true}) {
      Set<Integer> seen = new HashSet<>();
      List<Integer> sizes = new ArrayList<>();
      for (int part = 0; part < 3; part++) {
        int k = part;
        try (ArrayDataProvider p = provider(N, b -> b.batchSize(2).shuffle(shuffle).seed(3).shard(3, k))) {
          List<Integer> ids = epoch(p).stream().flatMap(List::stream).toList();
          sizes.add(ids.size());
          for (int id : ids) {
            assertTrue(seen.add(id), "sample " + id + " is in two parts");
          }
        }
      }
      assertEquals(List.of(3, 3, 4), sizes);
      assertEquals(IntStream.range(0, N).boxed().collect(Collectors.toSet()), seen);
    }
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(2).shard(3, 0))) {
      assertEquals(List.of(list(0, 1), list(2)), epoch(p));
    }
    // Even shards: ceil(10 / 3) = 4 each; the last part tops up with the order's first samples.
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(4).evenShards(true).shard(3, 2))) {
      assertEquals(List.of(list(8, 9, 0, 1)), epoch(p));
    }
  }

  @Test
  void stateSavedMidEpochResumesIdentically() {
    Consumer<ArrayDataProvider.Builder> settings =
        b -> b.batchSize(3).shuffle(true).seed(99).lastBatch(LastBatch.ROLL_OVER);
    List<List<Integer>> rest = new ArrayList<>();
    String saved;
    try (ArrayDataProvider p = provider(N, settings)) {
      epoch(p);
      BatchIterator<NamedBatch> it = p.iterator();
      it.next();
      it.next();
      saved = p.saveState().encode();
      while (it.hasNext()) {
        NamedBatch b = it.next();
        rest.add(IntStream.range(0, b.rows()).map(r -> (int) b.get("data").getFloat(r, 0)).boxed().toList());
      }
      rest.addAll(epoch(p));
      rest.addAll(epoch(p));
    }
    try (ArrayDataProvider q = provider(N, b -> b.batchSize(3).shuffle(true).seed(1).lastBatch(LastBatch.ROLL_OVER))) {
      q.restoreState(IterationState.decode(saved));
      List<List<Integer>> resumed = new ArrayList<>(epoch(q));
      resumed.addAll(epoch(q));
      resumed.addAll(epoch(q));
      assertEquals(rest, resumed);
      assertEquals(99, q.seed());
    }
    try (ArrayDataProvider other = provider(N, b -> b.batchSize(4).shuffle(true).seed(99).lastBatch(LastBatch.ROLL_OVER))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> other.restoreState(IterationState.decode(saved)));
      assertTrue(e.getMessage().startsWith("cannot restore an iteration state saved with other data or settings"), e.getMessage());
      assertTrue(e.getMessage().contains("batch=3") && e.getMessage().contains("batch=4"), e.getMessage());
    }
  }

  @Test
  void aNewIterationSupersedesTheOldOne() {
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(3))) {
      BatchIterator<NamedBatch> outer = p.iterator();
      outer.next();
      assertEquals(4, epoch(p).size()); // a nested loop runs its own epoch
      IllegalStateException e = assertThrows(IllegalStateException.class, outer::hasNext);
      assertTrue(e.getMessage().contains("no longer current"), e.getMessage());
      // Breaking out of a loop and starting another is fine.
      for (NamedBatch b : p) {
        break;
      }
      assertEquals(4, epoch(p).size());
    }
  }

  @Test
  void aClosedProviderRefusesToIterate() {
    ArrayDataProvider p = provider(N, b -> b.batchSize(3));
    BatchIterator<NamedBatch> it = p.iterator();
    p.close();
    assertThrows(IllegalStateException.class, p::iterator);
    assertThrows(IllegalStateException.class, it::hasNext);
  }

  @Test
  void errorsSayWhatIsWrong() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ArrayDataProvider.builder().data(data(10)).label(labels(9)).batchSize(0).build());
    assertEquals("sample counts differ: data 'data' [10, 2] has 10 samples (axis 0) but label 'softmax_label' [9] has 9",
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> provider(N, b -> b.batchSize(-1)));
    assertEquals("batch size must be >= 0 (0 = the whole shard as one batch), got -1", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> ArrayDataProvider.builder().data(Nd4j.create(DataType.FLOAT, 0, 3)).batchSize(0).build());
    assertEquals("empty data: data 'data' [0, 3] has 0 samples", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> ArrayDataProvider.builder().batchSize(2).build());
    assertEquals("empty data: add at least one data array", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> provider(N, b -> b.shard(3, 3)));
    assertEquals("partIndex must be in [0, 3), got 3", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> provider(2, b -> b.shard(3, 0)));
    assertEquals("shard 0 of 3 would be empty: 2 samples cannot fill 3 shards; use fewer shards or evenShards(true)", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> provider(N, b -> b.shuffle(true).shard(2, 0)));
    assertTrue(e.getMessage().startsWith("shuffle with numParts = 2 needs an explicit seed"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> provider(N, b -> b.padding("lable", 1)));
    assertEquals("ArrayDataProvider: padding set for 'lable', which is not provided; names are [data, softmax_label]", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> ArrayDataProvider.builder().data("x", data(3)).label("x", labels(3)));
    assertTrue(e.getMessage().startsWith("the name 'x' is already used by data 'x'"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> ArrayDataProvider.builder().label(labels(3)).batchSize(0).build());
    assertEquals("only labels were given; add at least one data array", e.getMessage());
  }

  /**
   * PAD_CONTINUE (MXNet's round_batch): the padding rows are the first samples of the next epoch's
   * order, and that epoch starts after them. With a seed, each epoch's order is the same permutation
   * a PARTIAL provider with that seed visits, so the expected stream is built from that.
   */
  @Test
  void padContinueTakesThePaddingFromTheNextEpochsOrderWhichThenSkipsIt() {
    List<Integer> stream = new ArrayList<>();
    try (ArrayDataProvider plain = provider(N, b -> b.batchSize(N).shuffle(true).seed(5))) {
      for (int e = 0; e < 4; e++) {
        stream.addAll(epoch(plain).get(0));
      }
    }
    try (ArrayDataProvider p = provider(N, b -> b.batchSize(3).shuffle(true).seed(5).lastBatch(LastBatch.PAD_CONTINUE))) {
      // The epochs cut one continuous stream of permutations: 10 + 2 padded, then 8 + 1, then 9.
      int at = 0;
      int[] pads = {2, 1, 0};
      for (int e = 0; e < 3; e++) {
        List<List<Integer>> batches = epoch(p);
        int rows = 0;
        for (List<Integer> b : batches) {
          assertEquals(stream.subList(at, at + b.size()), b, "epoch " + e);
          at += b.size();
          rows += b.size();
        }
        assertEquals(e == 0 ? 12 : 9, rows);
        assertEquals(pads[e], (rows - (e == 0 ? 10 : e == 1 ? 8 : 9)), "padding rows of epoch " + e);
      }
    }
  }

  /** Reader threads each write a share of every batch: the batches equal the consumer-thread ones. */
  @Test
  void readerThreadsDeliverTheSameBatchesAsTheConsumersThread() {
    for (LastBatch policy : LastBatch.values()) {
      for (int readers : new int[] {1, 2, 3}) {
        try (ArrayDataProvider plain = provider(23, b -> b.batchSize(4).shuffle(true).seed(9).lastBatch(policy));
            ArrayDataProvider threaded = provider(23, b -> b.batchSize(4).shuffle(true).seed(9).lastBatch(policy)
                .readers(readers))) {
          for (int e = 0; e < 3; e++) {
            assertEquals(epoch(plain), epoch(threaded), policy + ", " + readers + " readers, epoch " + e);
          }
        }
      }
    }
    assertThrows(IllegalArgumentException.class, () -> ArrayDataProvider.builder().readers(-1));
  }
  /**
   * The batch taken last stays intact while the next one is taken, with reader threads as without
   * (the consumer's ring of two): a wrapper may take batch {@code k + 1} while its own consumer still
   * reads batch {@code k}. In order, batch {@code k} holds samples {@code 5k} to {@code 5k + 4}.
   */
  @Test
  void aBatchStaysIntactWhileTheNextIsTakenWithOrWithoutReaderThreads() throws InterruptedException {
    for (int readers : new int[] {0, 1, 2, 3}) {
      try (ArrayDataProvider p = provider(200, b -> b.batchSize(5).readers(readers));
          BatchIterator<NamedBatch> it = p.iterator()) {
        NamedBatch held = it.next();
        for (int k = 1; it.hasNext(); k++) {
          NamedBatch next = it.next();
          // Time for the readers to run as far ahead as their ring lets them.
          Thread.sleep(2);
          List<Integer> expected = new ArrayList<>();
          for (int r = 0; r < 5; r++) {
            expected.add(5 * (k - 1) + r);
          }
          List<Integer> ids = new ArrayList<>();
          for (int r = 0; r < held.rows(); r++) {
            ids.add((int) held.get("data").getFloat(r, 0));
          }
          assertEquals(expected, ids, readers + " readers: batch " + (k - 1) + " changed once batch " + k + " was taken");
          held = next;
        }
      }
    }
  }
}
