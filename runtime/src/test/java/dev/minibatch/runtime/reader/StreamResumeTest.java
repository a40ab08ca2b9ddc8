package dev.minibatch.runtime.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Readers.Tuple;
import dev.minibatch.shape.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A streaming provider resumes by replay: the restored epoch's pass is read again from its start
 * and the delivered batches are read past. Expected batches are worked out by hand from the
 * reader's documented order, or are the reader's own pass {@code e} (what epoch {@code e} reads).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamResumeTest {
  /** Sample i as a tuple whose one column is i; with a counter of the tuples made. */
  private static Reader<Tuple> tuples(Reader<Integer> ints, AtomicInteger made) {
    return ints.map(i -> {
      made.incrementAndGet();
      return Tuple.of(i);
    });
  }

  private static FeedingProvider provider(Reader<Tuple> reader, Consumer<ProviderBuilder<?>> settings) {
    return FeedingProvider.builder(reader).data("x", 0, Shape.scalar(), DType.INT32).apply(settings).build();
  }

  private static <T> List<T> list(PipelineIterator<T> pass) {
    List<T> out = new ArrayList<>();
    try (pass) {
      pass.forEachRemaining(out::add);
    }
    return out;
  }

  /** The x column of each batch of one epoch, padding excluded. */
  private static List<List<Integer>> epoch(BatchIterator<NamedBatch> it) {
    List<List<Integer>> out = new ArrayList<>();
    while (it.hasNext()) {
      out.add(rows(it.next()));
    }
    return out;
  }

  private static List<Integer> rows(NamedBatch b) {
    List<Integer> r = new ArrayList<>();
    for (int i = 0; i < b.countSamples(); i++) {
      r.add(b.get("x").getInt(i));
    }
    return r;
  }

  /**
   * ROLL_OVER on part 1 of 2 of 11 samples, batches of 3: the part holds 1 3 5 7 9, so epoch 0 is
   * [1 3 5] carrying 7 9, epoch 1 [7 9 1] [3 5 7] carrying 9, epoch 2 [9 1 3] [5 7 9], epoch 3 [1 3
   * 5]. A state saved after the first batch of epoch 2 carries the sample at position 9 of pass 1.
   */
  @Test
  void aRestoredStreamTakesItsCarryFromTheEpochBeforeAndSkipsTheDeliveredBatches() {
    Consumer<ProviderBuilder<?>> settings = b -> b.batchSize(3).lastBatch(LastBatch.ROLL_OVER).shard(2, 1);
    IterationState saved;
    try (FeedingProvider p = provider(tuples(Readers.range(0, 11), new AtomicInteger()), settings)) {
      assertEquals(List.of(List.of(1, 3, 5)), epoch(p.iterator()));
      assertEquals(List.of(List.of(7, 9, 1), List.of(3, 5, 7)), epoch(p.iterator()));
      BatchIterator<NamedBatch> it = p.iterator();
      assertEquals(List.of(9, 1, 3), rows(it.next()));
      saved = p.saveState();
    }
    assertEquals(2, saved.epoch());
    assertEquals(1, saved.position());
    assertEquals(List.of(9), IntStream.of(saved.carried()).boxed().toList());
    AtomicInteger made = new AtomicInteger();
    try (FeedingProvider q = provider(tuples(Readers.range(0, 11), made), settings)) {
      q.restoreState(IterationState.decode(saved.encode()));
      // Pass 1 read to its end for the carry (11 tuples: the map runs on the samples of both parts),
      // then pass 2 past the delivered batch [9 1 3], whose 9 was carried: positions 0..3.
      assertEquals(11 + 4, made.get(), "tuples made by the replay");
      assertEquals(saved, q.saveState(), "a restored state saves as itself until iterated");
      assertEquals(List.of(List.of(5, 7, 9)), epoch(q.iterator()));
      assertEquals(List.of(List.of(1, 3, 5)), epoch(q.iterator()));
    }
  }

  /**
   * Epoch e of a provider reads pass e of its reader, however many passes were started before: a
   * seeded shuffle's epoch 2 resumed in a new provider over a new reader has pass 2's order.
   */
  @Test
  void aShuffledReaderReplaysTheRestoredEpochInItsOrder() {
    Consumer<ProviderBuilder<?>> settings = b -> b.batchSize(4);
    List<Integer> pass2 = list(Readers.range(0, 20).shuffle(8, 42).iterator(2));
    assertNotEquals(list(Readers.range(0, 20).shuffle(8, 42).iterator(1)), pass2);
    IterationState saved;
    try (FeedingProvider p = provider(tuples(Readers.range(0, 20).shuffle(8, 42), new AtomicInteger()), settings)) {
      p.iterator().next();
      epoch(p.iterator());
      BatchIterator<NamedBatch> it = p.iterator();
      assertEquals(pass2.subList(0, 4), rows(it.next()), "epoch 2 is pass 2");
      assertEquals(pass2.subList(4, 8), rows(it.next()));
      saved = p.saveState();
    }
    Reader<Integer> fresh = Readers.range(0, 20).shuffle(8, 42);
    fresh.toList();   // a counted pass in between changes nothing: epochs read numbered passes
    try (FeedingProvider q = provider(tuples(fresh, new AtomicInteger()), settings)) {
      q.restoreState(saved);
      List<Integer> rest = new ArrayList<>();
      epoch(q.iterator()).forEach(rest::addAll);
      assertEquals(pass2.subList(8, 20), rest);
    }
  }

  /**
   * PAD_WRAP pads the last batch with the pass's first samples, which a replay read past without
   * writing them: 10 samples in batches of 3 end [9 0 1] with 2 rows of padding.
   */
  @Test
  void aReplayedPassStillPadsItsLastBatchWithItsFirstSamples() {
    Consumer<ProviderBuilder<?>> settings = b -> b.batchSize(3).lastBatch(LastBatch.PAD_WRAP);
    IterationState saved;
    try (FeedingProvider p = provider(tuples(Readers.range(0, 10), new AtomicInteger()), settings)) {
      BatchIterator<NamedBatch> it = p.iterator();
      it.next();
      it.next();
      saved = p.saveState();
    }
    try (FeedingProvider q = provider(tuples(Readers.range(0, 10), new AtomicInteger()), settings)) {
      q.restoreState(saved);
      BatchIterator<NamedBatch> it = q.iterator();
      assertEquals(List.of(6, 7, 8), rows(it.next()));
      NamedBatch last = it.next();
      assertEquals(2, last.pad());
      List<Integer> all = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        all.add(last.get("x").getInt(r));
      }
      assertEquals(List.of(9, 0, 1), all);
      assertEquals(false, it.hasNext());
    }
  }

  /** A one-shot source (a Stream's iterator, asked again) cannot be replayed, and says what to use. */
  @Test
  void aOneShotSourceIsRefusedAtRestoreNamingWhatToUseInstead() {
    Stream<Tuple> once = IntStream.range(0, 10).mapToObj(Tuple::of);
    Reader<Tuple> oneShot = () -> PipelineIterator.of(once.iterator());
    try (FeedingProvider p = provider(oneShot, b -> b.batchSize(3))) {
      BatchIterator<NamedBatch> it = p.iterator();
      assertEquals(List.of(0, 1, 2), rows(it.next()));
      IterationState s = p.saveState();
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.restoreState(s));
      assertTrue(e.getMessage().startsWith("FeedingProvider: cannot resume: the source cannot be replayed (it refused to"
          + " start epoch 0 again: stream has already been operated upon or closed)"), e.getMessage());
      assertTrue(e.getMessage().contains("Readers.from(list)"), e.getMessage());
    }
    PipelineIterator<Tuple> shared = PipelineIterator.of(IntStream.range(0, 10).mapToObj(Tuple::of).iterator());
    try (FeedingProvider p = provider(() -> shared, b -> b.batchSize(3))) {
      BatchIterator<NamedBatch> it = p.iterator();
      it.next();
      IterationState s = p.saveState();
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.restoreState(s));
      assertTrue(e.getMessage().contains("it handed back the iterator of an earlier pass"), e.getMessage());
    }
  }

  /** A source that gives fewer samples than when the state was saved is refused naming the range. */
  @Test
  void aSourceShorterThanTheSavedPositionIsRefusedNamingTheRange() {
    IterationState saved;
    try (FeedingProvider p = provider(tuples(Readers.range(0, 10), new AtomicInteger()), b -> b.batchSize(3))) {
      BatchIterator<NamedBatch> it = p.iterator();
      it.next();
      it.next();
      it.next();
      saved = p.saveState();
    }
    try (FeedingProvider q = provider(tuples(Readers.range(0, 5), new AtomicInteger()), b -> b.batchSize(3))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> q.restoreState(saved));
      assertTrue(e.getMessage().startsWith("iteration state: position 3 is out of range; epoch 0 has 2 batches, so the "
          + "position must be in [0, 2] (read again, its pass gave 5 samples of this part"), e.getMessage());
    }
  }

  /**
   * A stream learns that its epoch ended only when asked for the next batch: a state saved after
   * the last full batch but before that resumes an empty rest of the epoch, then the next epoch,
   * just as the saved iteration would have gone on; one saved after the end resumes the next epoch.
   */
  @Test
  void aStateSavedAtTheEndOfAnEpochResumesWhereTheSavedIterationStood() {
    Consumer<ProviderBuilder<?>> settings = b -> b.batchSize(3);
    IterationState beforeEnd;
    IterationState afterEnd;
    try (FeedingProvider p = provider(tuples(Readers.range(0, 6), new AtomicInteger()), settings)) {
      BatchIterator<NamedBatch> it = p.iterator();
      it.next();
      it.next();
      beforeEnd = p.saveState();
      assertEquals(false, it.hasNext());
      afterEnd = p.saveState();
    }
    assertEquals(List.of(0, 2), List.of(beforeEnd.epoch(), beforeEnd.position()));
    assertEquals(List.of(1, 0), List.of(afterEnd.epoch(), afterEnd.position()));
    try (FeedingProvider q = provider(tuples(Readers.range(0, 6), new AtomicInteger()), settings)) {
      q.restoreState(beforeEnd);
      assertEquals(List.of(), epoch(q.iterator()));
      assertEquals(List.of(List.of(0, 1, 2), List.of(3, 4, 5)), epoch(q.iterator()));
      assertEquals(2, q.saveState().epoch(), "the restored epoch 0 and epoch 1 are over");
    }
  }

  /** A state of a random-access provider, or of other settings, is refused naming both fingerprints. */
  @Test
  void aStateOfAnotherKindOrOtherSettingsIsRefused() {
    try (FeedingProvider p = provider(tuples(Readers.range(0, 6), new AtomicInteger()), b -> b.batchSize(3))) {
      IterationState list = new IterationState(1, 0, 1, new int[0], "samples=6,batch=3,lastBatch=PARTIAL,shuffle=false,"
          + "parts=1,part=0,even=false");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.restoreState(list));
      assertEquals("cannot restore an iteration state saved with other data or settings, or by another kind of "
          + "provider:\n  saved:    samples=6,batch=3,lastBatch=PARTIAL,shuffle=false,parts=1,part=0,even=false\n"
          + "  this one: stream,batch=3,lastBatch=PARTIAL,parts=1,part=0", e.getMessage());
      IterationState other = new IterationState(1, 0, 1, new int[0], "stream,batch=2,lastBatch=PARTIAL,parts=1,part=0");
      assertThrows(IllegalArgumentException.class, () -> p.restoreState(other));
      IterationState carried = new IterationState(1, 1, 0, new int[] {5}, "stream,batch=3,lastBatch=PARTIAL,parts=1,"
          + "part=0");
      e = assertThrows(IllegalArgumentException.class, () -> p.restoreState(carried));
      assertEquals("iteration state: 1 carried samples into epoch 1; a stream carries fewer than a batch (3), only under"
          + " ROLL_OVER and not into epoch 0", e.getMessage());
    }
  }
  /**
   * A pass that fails to open (a file briefly unreadable) leaves the provider where it was: the next
   * iterator() starts the same epoch again, with the samples ROLL_OVER carried into it. 11 samples in
   * batches of 3: epoch 0 is [0 1 2] [3 4 5] [6 7 8] carrying 9 10, so epoch 1 starts [9 10 0] from
   * pass 1, however often its opening failed; epoch 2 is then pass 2.
   */
  @Test
  void aPassThatFailsToOpenIsStartedAgainWithItsCarry() {
    List<Integer> opened = new ArrayList<>();
    AtomicInteger failures = new AtomicInteger(2);
    Reader<Integer> flaky = new Reader<>() {
      @Override
      public PipelineIterator<Integer> iterator() {
        throw new AssertionError("the provider opens numbered passes");
      }

      @Override
      public PipelineIterator<Integer> iterator(int pass) {
        if (pass == 1 && failures.getAndDecrement() > 0) {
          throw new IllegalStateException("pass 1 cannot be opened yet");
        }
        opened.add(pass);
        return Readers.range(0, 11).iterator(pass);
      }
    };
    try (FeedingProvider p = provider(tuples(flaky, new AtomicInteger()), b -> b.batchSize(3)
        .lastBatch(LastBatch.ROLL_OVER))) {
      assertEquals(List.of(List.of(0, 1, 2), List.of(3, 4, 5), List.of(6, 7, 8)), epoch(p.iterator()));
      assertThrows(IllegalStateException.class, p::iterator);
      assertThrows(IllegalStateException.class, p::iterator);
      List<List<Integer>> epoch1 = epoch(p.iterator());
      assertEquals(List.of(9, 10, 0), epoch1.get(0), "epoch 1 starts with the samples carried from epoch 0");
      assertEquals(2, p.saveState().epoch(), "after epoch 1, the state names epoch 2 next");
      epoch(p.iterator());
      assertEquals(List.of(0, 1, 2), opened, "passes opened: 0, then 1 once it opens, then 2");
    }
  }

  /**
   * IterationState: a state's seed is a value the provider takes. A stream never shuffles, but it
   * saves its seed and carries it to its batches: restored into a provider built with another seed,
   * the state's seed is the one it saves from then on.
   */
  @Test
  void aRestoredStateBringsItsSeed() {
    IterationState saved;
    try (FeedingProvider p = provider(tuples(Readers.range(0, 7), new AtomicInteger()), b -> b.batchSize(2).seed(5));
        BatchIterator<NamedBatch> it = p.iterator()) {
      it.next();
      saved = p.saveState();
    }
    assertEquals(5, saved.seed());
    try (FeedingProvider q = provider(tuples(Readers.range(0, 7), new AtomicInteger()), b -> b.batchSize(2).seed(9))) {
      assertEquals(9, q.saveState().seed());
      q.restoreState(saved);
      try (BatchIterator<NamedBatch> it = q.iterator()) {
        assertEquals(List.of(List.of(2, 3), List.of(4, 5), List.of(6)), epoch(it));
      }
      assertEquals(5, q.saveState().seed());
    }
  }
}
