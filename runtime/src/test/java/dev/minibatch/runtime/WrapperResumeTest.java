package dev.minibatch.runtime;

import static dev.minibatch.runtime.ResizedAndMergedProviderTest.counting;
import static dev.minibatch.runtime.ResizedAndMergedProviderTest.epoch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.engine.ResizedProvider;
import dev.minibatch.runtime.reader.FeedingProvider;
import dev.minibatch.runtime.reader.Readers;
import dev.minibatch.runtime.reader.Readers.Tuple;
import dev.minibatch.shape.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The wrappers resume with a composed state: their own epoch and position, and the wrapped
 * providers' states as parts. Expected batches are worked out by hand (10 samples in batches of 3:
 * A = [0 1 2], B = [3 4 5], C = [6 7 8], D = [9]) or, for shuffled data, are the wrapped
 * provider's own epochs, which the wrapper's documented rule picks from.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WrapperResumeTest {
  static final List<Integer> A = ResizedAndMergedProviderTest.A;
  static final List<Integer> B = ResizedAndMergedProviderTest.B;
  static final List<Integer> C = ResizedAndMergedProviderTest.C;
  static final List<Integer> D = ResizedAndMergedProviderTest.D;

  /** The data column of the next {@code n} batches of {@code it}. */
  static List<List<Integer>> take(BatchIterator<? extends Batch> it, int n) {
    List<List<Integer>> out = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      Batch b = it.next();
      List<Integer> rows = new ArrayList<>();
      for (int r = 0; r < b.countSamples(); r++) {
        rows.add((int) b.data().get(0).getFloat(r, 0));
      }
      out.add(rows);
    }
    return out;
  }

  /** The state's text read back, as a checkpoint in a new process would. */
  static IterationState viaText(IterationState s) {
    return IterationState.decode(s.encode());
  }

  // ---- ResizedProvider ----

  /** Epochs of 3 over A B C D, continuing: [A B C], [D A B], [C D A]. */
  @Test
  void resizedResumesMidEpochAcrossTheWrappedEpochsEnd() {
    IterationState saved;
    try (ResizedProvider<NamedBatch> p = ResizedProvider.of(counting(10, 3, 0, true), 3)) {
      assertEquals(List.of(A, B, C), epoch(p));
      BatchIterator<NamedBatch> it = p.iterator();
      assertEquals(List.of(D), take(it, 1));
      saved = p.saveState();
    }
    String text = saved.encode();
    assertTrue(text.startsWith("minibatch-state/2;seed=0;epoch=1;position=1;carried=;settings=ResizedProvider("
        + "batchesPerEpoch=3,restartEachEpoch=false);parts=1;minibatch-state/1;seed="), text);
    assertEquals(List.of(1, 0), List.of(saved.parts().get(0).epoch(), saved.parts().get(0).position()),
        "the wrapped provider delivered its epoch 0, so its state is epoch 1's start");
    try (ResizedProvider<NamedBatch> q = ResizedProvider.of(counting(10, 3, 0, true), 3)) {
      q.restoreState(viaText(saved));
      assertEquals(List.of(A, B), epoch(q));
      assertEquals(List.of(C, D, A), epoch(q));
    }
  }

  /**
   * restartEachEpoch, epochs of 2: [A B] every epoch. Saved between epochs, the wrapped epoch stood
   * after B: the restored wrapper starts a fresh wrapped epoch, as the saved one would have.
   */
  @Test
  void resizedRestartingEachEpochResumesAFreshWrappedEpochAfterABoundary() {
    Supplier<ResizedProvider<NamedBatch>> make = () -> ResizedProvider.create(counting(10, 3, 0, true),
        b -> b.batchesPerEpoch(2).restartEachEpoch(true));
    IterationState boundary;
    IterationState middle;
    try (ResizedProvider<NamedBatch> p = make.get()) {
      assertEquals(List.of(A, B), epoch(p));
      boundary = p.saveState();
      BatchIterator<NamedBatch> it = p.iterator();
      take(it, 1);
      middle = p.saveState();
    }
    try (ResizedProvider<NamedBatch> q = make.get()) {
      q.restoreState(viaText(boundary));
      assertEquals(List.of(A, B), epoch(q));
      assertEquals(List.of(A, B), epoch(q));
    }
    try (ResizedProvider<NamedBatch> q = make.get()) {
      q.restoreState(viaText(middle));
      assertEquals(List.of(B), epoch(q));
      assertEquals(List.of(A, B), epoch(q));
    }
  }

  /** Shuffled: restarting, epoch e is the first 2 batches of the wrapped provider's epoch e. */
  @Test
  void resizedRestartingEachEpochResumesTheWrappedShuffle() {
    Supplier<ArrayDataProvider> shuffled = () -> ArrayDataProvider.builder()
        .data(Nd4j.arange(10).castTo(DataType.FLOAT).reshape(10, 1)).batchSize(3).shuffle(true).seed(5).build();
    List<List<List<Integer>>> wrapped = new ArrayList<>();
    try (ArrayDataProvider plain = shuffled.get()) {
      for (int e = 0; e < 3; e++) {
        wrapped.add(epoch(plain));
      }
    }
    IterationState saved;
    try (ResizedProvider<NamedBatch> p = ResizedProvider.create(shuffled.get(),
        b -> b.batchesPerEpoch(2).restartEachEpoch(true))) {
      assertEquals(wrapped.get(0).subList(0, 2), epoch(p));
      saved = p.saveState();
    }
    try (ResizedProvider<NamedBatch> q = ResizedProvider.create(shuffled.get(),
        b -> b.batchesPerEpoch(2).restartEachEpoch(true))) {
      q.restoreState(viaText(saved));
      assertEquals(wrapped.get(1).subList(0, 2), epoch(q));
      assertEquals(wrapped.get(2).subList(0, 2), epoch(q));
    }
  }

  private static FeedingProvider stream(int n) {
    return FeedingProvider.builder(Readers.range(0, n).map(i -> Tuple.of((float) i)))
        .data("data", 0, Shape.of(1), DType.FLOAT32).batchSize(3).build();
  }

  /**
   * Over a stream of 6 samples ([0 1 2] [3 4 5] per pass), epochs of 2: saved at a boundary, the
   * stream stood after its last batch without knowing its pass was over; the restored wrapper reads
   * its empty rest and goes on with the next pass.
   */
  @Test
  void resizedOverAStreamResumesPastAWrappedPassThatStoodAtItsEnd() {
    List<Integer> first = List.of(0, 1, 2);
    List<Integer> second = List.of(3, 4, 5);
    IterationState boundary;
    IterationState middle;
    try (ResizedProvider<NamedBatch> p = ResizedProvider.of(stream(6), 2)) {
      assertEquals(List.of(first, second), epoch(p));
      boundary = p.saveState();
      take(p.iterator(), 1);
      middle = p.saveState();
    }
    assertEquals(List.of(0, 2), List.of(boundary.parts().get(0).epoch(), boundary.parts().get(0).position()));
    try (ResizedProvider<NamedBatch> q = ResizedProvider.of(stream(6), 2)) {
      q.restoreState(viaText(boundary));
      assertEquals(List.of(first, second), epoch(q));
    }
    try (ResizedProvider<NamedBatch> q = ResizedProvider.of(stream(6), 2)) {
      q.restoreState(viaText(middle));
      assertEquals(List.of(second), epoch(q));
      assertEquals(List.of(first, second), epoch(q));
    }
  }

  @Test
  void resizedRefusesAStateOfAnotherKindOrSettingsAndAWrappedProviderThatCannotResume() {
    try (ResizedProvider<NamedBatch> p = ResizedProvider.of(counting(10, 3, 0, true), 3)) {
      IterationState plain;
      try (ArrayDataProvider a = counting(10, 3, 0, true)) {
        plain = a.saveState();
      }
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.restoreState(plain));
      assertEquals("cannot restore an iteration state saved with other settings, or by another kind of provider:\n"
          + "  saved:    " + plain.settings() + "\n"
          + "  this one: ResizedProvider(batchesPerEpoch=3,restartEachEpoch=false)", e.getMessage());
      IterationState fourPerEpoch;
      try (ResizedProvider<NamedBatch> four = ResizedProvider.of(counting(10, 3, 0, true), 4)) {
        fourPerEpoch = four.saveState();
      }
      e = assertThrows(IllegalArgumentException.class, () -> p.restoreState(fourPerEpoch));
      assertTrue(e.getMessage().contains("saved:    ResizedProvider(batchesPerEpoch=4,"), e.getMessage());
      // The wrapped provider judges its part: a part of other data is refused by it.
      IterationState otherData;
      try (ResizedProvider<NamedBatch> eleven = ResizedProvider.of(counting(11, 3, 0, true), 3)) {
        otherData = eleven.saveState();
      }
      e = assertThrows(IllegalArgumentException.class, () -> p.restoreState(otherData));
      assertTrue(e.getMessage().contains("saved:    samples=11,"), e.getMessage());
    }
    BatchProvider<NamedBatch> foreign = notResumable(counting(10, 3, 0, true));
    try (ResizedProvider<NamedBatch> p = ResizedProvider.of(foreign, 3)) {
      UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, p::saveState);
      assertTrue(e.getMessage().startsWith("ResizedProvider cannot save an iteration state: the wrapped "),
          e.getMessage());
    }
  }

  // ---- MergedProvider ----

  /** Provider 0's data column and provider 1's ("data2") of the next {@code n} batches. */
  static List<List<Integer>> takeMerged(BatchIterator<NamedBatch> it, int n) {
    List<List<Integer>> out = new ArrayList<>();
    for (int k = 0; k < n && it.hasNext(); k++) {
      NamedBatch b = it.next();
      List<Integer> rows = new ArrayList<>();
      for (int r = 0; r < b.countSamples(); r++) {
        rows.add((int) b.get("data").getFloat(r, 0));
        rows.add((int) b.get("data2").getFloat(r, 0));
      }
      out.add(rows);
    }
    return out;
  }

  /** Rows i of provider 0 hold i, of provider 1 hold 200 + i: batch [0 1 2] reads [0 200 1 201 2 202]. */
  static List<Integer> merged(List<Integer> batch) {
    List<Integer> out = new ArrayList<>();
    batch.forEach(i -> {
      out.add(i);
      out.add(200 + i);
    });
    return out;
  }

  private static dev.minibatch.runtime.engine.MergedProvider mergedArrays() {
    return dev.minibatch.runtime.engine.MergedProvider.builder().add(counting(10, 3, 0, true))
        .add(counting(10, 3, 200, true), java.util.Map.of("data", "data2", "softmax_label", "label2")).build();
  }

  @Test
  void mergedResumesEveryProviderMidEpoch() {
    IterationState saved;
    try (dev.minibatch.runtime.engine.MergedProvider m = mergedArrays()) {
      BatchIterator<NamedBatch> it = m.iterator();
      assertEquals(List.of(merged(A), merged(B)), takeMerged(it, 2));
      saved = m.saveState();
    }
    assertEquals(List.of(0, 2, 2), List.of(saved.epoch(), saved.position(), saved.parts().size()));
    try (dev.minibatch.runtime.engine.MergedProvider m = mergedArrays()) {
      m.restoreState(viaText(saved));
      assertEquals(List.of(merged(C), merged(D)), takeMerged(m.iterator(), 9));
      assertEquals(List.of(merged(A), merged(B), merged(C), merged(D)), takeMerged(m.iterator(), 9));
    }
  }

  /** Saved after the last batch, before hasNext() said so: every provider is at its next epoch, and so is the merge. */
  @Test
  void mergedSavedAfterItsLastBatchResumesTheNextEpoch() {
    IterationState saved;
    try (dev.minibatch.runtime.engine.MergedProvider m = mergedArrays()) {
      takeMerged(m.iterator(), 4);
      saved = m.saveState();
    }
    assertEquals(List.of(1, 0), List.of(saved.epoch(), saved.position()));
    try (dev.minibatch.runtime.engine.MergedProvider m = mergedArrays()) {
      m.restoreState(saved);
      assertEquals(List.of(merged(A), merged(B), merged(C), merged(D)), takeMerged(m.iterator(), 9));
    }
  }

  /** Over streams, each on its prefetch thread (the generic path): the states the threads recorded. */
  @Test
  void mergedStreamsResumeFromTheStatesOfTheBatchesTaken() {
    Supplier<dev.minibatch.runtime.engine.MergedProvider> make = () -> dev.minibatch.runtime.engine.MergedProvider
        .builder().add(stream(10)).add(FeedingProvider.builder(Readers.range(0, 10).map(i -> Tuple.of(200f + i)))
            .data("data2", 0, Shape.of(1), DType.FLOAT32).batchSize(3).build()).build();
    IterationState saved;
    try (dev.minibatch.runtime.engine.MergedProvider m = make.get()) {
      takeMerged(m.iterator(), 4);
      BatchIterator<NamedBatch> it = m.iterator();
      assertEquals(List.of(merged(A)), takeMerged(it, 1));
      saved = m.saveState();
    }
    try (dev.minibatch.runtime.engine.MergedProvider m = make.get()) {
      m.restoreState(viaText(saved));
      assertEquals(List.of(merged(B), merged(C), merged(D)), takeMerged(m.iterator(), 9));
      assertEquals(List.of(merged(A), merged(B), merged(C), merged(D)), takeMerged(m.iterator(), 9));
    }
  }

  /**
   * A part a provider refuses names it, and leaves every provider as it stood: the merge then goes
   * on from the state saved before the attempt.
   */
  @Test
  void mergedRefusesAStateOfOtherProvidersAndKeepsItsOwnWhenAPartIsRefused() {
    try (dev.minibatch.runtime.engine.MergedProvider m = mergedArrays()) {
      BatchIterator<NamedBatch> it = m.iterator();
      takeMerged(it, 1);
      IterationState s0 = m.saveState();
      IterationState badPart = new IterationState(0, 0, 1, new int[0], s0.settings(),
          List.of(s0.parts().get(0), new IterationState(s0.parts().get(1).seed(), 0, 99, new int[0],
              s0.parts().get(1).settings())));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.restoreState(badPart));
      assertTrue(e.getMessage().startsWith("MergedProvider: provider 1 (ArrayDataProvider) refused its part: iteration "
          + "state: position 99 is out of range"), e.getMessage());
      assertEquals(s0, m.saveState());
      assertEquals(List.of(merged(B), merged(C), merged(D)), takeMerged(m.iterator(), 9));
      IterationState one = new IterationState(0, 0, 0, new int[0], s0.settings(), List.of(s0.parts().get(0)));
      e = assertThrows(IllegalArgumentException.class, () -> m.restoreState(one));
      assertEquals("iteration state: a MergedProvider's state holds one part per provider, 2 here, found 1",
          e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> m.restoreState(s0.parts().get(0)));
      assertTrue(e.getMessage().endsWith("this one: MergedProvider(providers=2)"), e.getMessage());
    }
    try (dev.minibatch.runtime.engine.MergedProvider m = dev.minibatch.runtime.engine.MergedProvider.builder()
        .add(counting(10, 3, 0, true)).add(notResumable(counting(10, 3, 200, true)), java.util.Map.of("data", "data2",
            "softmax_label", "label2")).build()) {
      UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, m::saveState);
      assertTrue(e.getMessage().startsWith("MergedProvider cannot save an iteration state: provider 1 "), e.getMessage());
    }
  }

  /** {@code inner} behind a provider that is not {@link Resumable}. */
  static BatchProvider<NamedBatch> notResumable(ArrayDataProvider inner) {
    return new BatchProvider<>() {
      @Override
      public int batchSize() {
        return inner.batchSize();
      }

      @Override
      public List<DataDesc> provideData() {
        return inner.provideData();
      }

      @Override
      public List<DataDesc> provideLabel() {
        return inner.provideLabel();
      }

      @Override
      public BatchIterator<NamedBatch> iterator() {
        return inner.iterator();
      }

      @Override
      public void close() {
        inner.close();
      }
    };
  }
}
