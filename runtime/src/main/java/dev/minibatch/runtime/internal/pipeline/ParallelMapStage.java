package dev.minibatch.runtime.internal.pipeline;

import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.SampleContext;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * A parallel map: workers pull chunks from the shared source (under a lock, numbering each chunk),
 * map them, and deposit the results; the consumer takes chunks in number order (ordered) or as they
 * come. At most {@code bufferSize + workers} items are pulled and not yet taken by the consumer:
 * a worker takes that many "tokens" before pulling and the consumer gives them back. The worker
 * holding the chunk the consumer needs next never waits for tokens, so the scheme cannot deadlock;
 * the consumer is woken only when the chunk it needs arrives, so nothing spins.
 */
final class ParallelMapStage<T, R> extends ChunkedStage<R> {
  private final State state;
  private final StageCounters counters;
  private final PipelineIterator<? extends T> source;

  private ParallelMapStage(State state, StageCounters counters, PipelineIterator<? extends T> source,
      Workers workers) {
    super(workers, new Shutdown(state, workers, counters));
    this.state = state;
    this.counters = counters;
    this.source = source;
  }

  static <T, R> ParallelMapStage<T, R> start(PipelineIterator<? extends T> source, ParallelOptions options,
      int epoch, BiFunction<? super T, ? super SampleContext, ? extends R> mapper) {
    int capacity = options.bufferSize() + options.workers();
    State state = new State(options.name(), options.ordered(), capacity, options.workers());
    StageCounters counters = state.counters;
    Workers workers = new Workers(options.name());
    ParallelMapStage<T, R> stage = new ParallelMapStage<>(state, counters, source, workers);
    long seed = options.seed() != null ? options.seed() : Seeds.unseeded();
    int maxChunk = ChunkPacer.maxChunkFor(capacity, options.workers());
    for (int w = 0; w < options.workers(); w++) {
      Worker<T, R> worker = new Worker<>(options.name(), state, counters, source, mapper,
          new SeededContext(seed, epoch), new ChunkPacer(maxChunk));
      workers.start(worker);
    }
    return stage;
  }

  @Override
  boolean takeChunk() {
    Result chunk = state.take();
    if (chunk == null) {
      return false;
    }
    serve(chunk.items, chunk.size);
    return true;
  }

  @Override
  public PipelineStats stats() {
    return source.stats().plus(counters.snapshot());
  }

  /** A mapped chunk. */
  private static final class Result {
    final Object[] items;
    final int size;

    Result(Object[] items, int size) {
      this.items = items;
      this.size = size;
    }
  }

  /**
   * Everything workers and consumer share; never references the iterator. The token count and the
   * deposited chunks change only inside calls of the {@link HandOff}, which does the waiting.
   */
  private static final class State {
    final StageCounters counters;
    final HandOff handOff;
    final boolean ordered;
    final HashMap<Long, Result> bySeq = new HashMap<>();
    final ArrayDeque<Result> arrived = new ArrayDeque<>();
    int tokens;
    volatile int queued;
    long consumed;
    /** Written under both locks (the hand-off's and {@link #sourceLock}), read under either. */
    volatile boolean sourceDone;
    int workersLeft;

    /** Serialises the workers' pulls from the source: a mutex, not a hand-off (nobody waits for a change). */
    final ReentrantLock sourceLock = new ReentrantLock();
    long nextSeq;
    long nextIndex;

    State(String name, boolean ordered, int capacity, int workers) {
      this.ordered = ordered;
      this.counters = new StageCounters(name, workers, capacity, () -> queued);
      this.tokens = capacity;
      this.workersLeft = workers;
      // Every worker is a producer: the consumer sees the end once all of them have left.
      this.handOff = new HandOff(counters, workers);
    }

    /** Up to {@code wanted} tokens, waiting while none are free; 0 when the stage is over. */
    int acquire(int wanted) {
      try {
        Integer got = handOff.put(() -> {
          if (sourceDone) {
            return 0;
          }
          if (tokens == 0) {
            return null;
          }
          int n = Math.min(wanted, tokens);
          tokens -= n;
          return n;
        });
        return got == null ? 0 : got;
      } catch (InterruptedException e) {
        // Only a stop interrupts a worker.
        return 0;
      }
    }

    void release(int unused) {
      if (unused > 0) {
        handOff.free(() -> tokens += unused);
      }
    }

    /** Under {@link #sourceLock}, when the source has no more items: workers waiting for tokens leave. */
    void sourceEnded() {
      handOff.free(() -> sourceDone = true);
    }

    void deposit(long seq, Object[] items, int size, int unused) {
      release(unused);
      handOff.offer(() -> {
        if (handOff.isClosed()) {
          return false;
        }
        Result r = new Result(items, size);
        queued += size;
        if (ordered) {
          bySeq.put(seq, r);
          // Only the chunk the consumer needs next is worth waking it for.
          return seq == consumed;
        }
        arrived.add(r);
        return true;
      });
    }

    void fail(StageFailedException e) {
      handOff.fail(e);
    }

    boolean stopped() {
      return handOff.stopped();
    }

    @Nullable Result take() {
      return handOff.take(() -> {
        Result r = ordered ? bySeq.remove(consumed) : arrived.poll();
        if (r != null) {
          consumed++;
          queued -= r.size;
          tokens += r.size;
        }
        return r;
      });
    }

    void stop() {
      handOff.close(() -> {
        bySeq.clear();
        arrived.clear();
        queued = 0;
      });
    }

    /** True for the last worker to leave, which then closes the source. */
    boolean leave() {
      return handOff.locked(() -> --workersLeft == 0);
    }
  }

  /** The per-worker {@link SampleContext}, reused from sample to sample. */

  /** One worker's loop: take tokens, pull a chunk, map it, deposit it. */
  private static final class Worker<T, R> implements Runnable {
    private final String name;
    private final State state;
    private final StageCounters counters;
    private final PipelineIterator<? extends T> source;
    private final BiFunction<? super T, ? super SampleContext, ? extends R> mapper;
    private final SeededContext context;
    private final ChunkPacer pacer;

    Worker(String name, State state, StageCounters counters, PipelineIterator<? extends T> source,
        BiFunction<? super T, ? super SampleContext, ? extends R> mapper, SeededContext context, ChunkPacer pacer) {
      this.name = name;
      this.state = state;
      this.counters = counters;
      this.source = source;
      this.mapper = mapper;
      this.context = context;
      this.pacer = pacer;
    }

    @Override
    public void run() {
      try {
        while (step()) {
          // next chunk
        }
      } finally {
        if (state.leave()) {
          counters.ended();
          try {
            source.close();
          } catch (RuntimeException e) {
            state.fail(StageFailedException.of("source of " + name, StageFailedException.NO_SAMPLE, e));
          }
        }
        // After the source is closed: the consumer sees the end only once it is.
        state.handOff.finish();
      }
    }

    /** One chunk; false when this worker should stop. */
    private boolean step() {
      int wanted = state.acquire(pacer.target());
      long t1 = System.nanoTime();
      if (wanted == 0) {
        return false;
      }
      Object[] items = new Object[wanted];
      int n = 0;
      long seq = -1;
      long start;
      state.sourceLock.lock();
      try {
        if (state.sourceDone || state.stopped()) {
          state.release(wanted);
          return false;
        }
        start = state.nextIndex;
        boolean more = true;
        try {
          while (n < wanted && (more = source.hasNext())) {
            // Not items[n++] = next(): n must still count the items read if next() throws, so the
            // failure names the failing item's index.
            items[n] = source.next();
            n++;
          }
        } catch (Throwable t) {
          if (!state.stopped()) {
            state.fail(StageFailedException.of("source of " + name, start + n, t));
          }
          return false;
        }
        state.nextIndex += n;
        if (n > 0) {
          seq = state.nextSeq++;
        }
        if (!more) {
          state.sourceEnded();
        }
      } finally {
        state.sourceLock.unlock();
      }
      long t2 = System.nanoTime();
      counters.addWaitInput(t2, t2 - t1);
      if (n == 0) {
        state.release(wanted);
        return false;
      }
      for (int j = 0; j < n; j++) {
        context.at(start + j);
        try {
          @SuppressWarnings("unchecked")
          T item = (T) items[j];
          items[j] = mapper.apply(item, context);
        } catch (Throwable t) {
          if (!state.stopped()) {
            state.fail(StageFailedException.of(name, start + j, t));
          }
          return false;
        }
      }
      long t3 = System.nanoTime();
      counters.addBusy(t3, t3 - t2, start, n);
      counters.addItems(n);
      pacer.observe(t3 - t1, n);
      state.deposit(seq, items, n, wanted - n);
      return true;
    }
  }

  private record Shutdown(State state, Workers workers, StageCounters counters) implements Runnable {
    @Override
    public void run() {
      state.stop();
      workers.stop();
      counters.ended();
    }
  }
}
