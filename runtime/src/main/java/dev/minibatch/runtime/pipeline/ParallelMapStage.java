package dev.minibatch.runtime.pipeline;

import dev.minibatch.runtime.Seeds;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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
      int epoch, ContextMapper<? super T, ? extends R> mapper) {
    int capacity = options.bufferSize() + options.workers();
    State state = new State(options.ordered(), capacity, options.workers());
    StageCounters counters = new StageCounters(options.name(), options.workers(), capacity, () -> state.queued);
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
    Result chunk = state.take(counters);
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

  /** Everything workers and consumer share; never references the iterator. */
  private static final class State {
    final ReentrantLock lock = new ReentrantLock();
    final Condition tokensFree = lock.newCondition();
    final Condition ready = lock.newCondition();
    final boolean ordered;
    final HashMap<Long, Result> bySeq = new HashMap<>();
    final ArrayDeque<Result> arrived = new ArrayDeque<>();
    int tokens;
    volatile int queued;
    long consumed;
    long totalChunks = -1;
    @Nullable StageFailedException failure;
    volatile boolean stopped;

    final ReentrantLock sourceLock = new ReentrantLock();
    long nextSeq;
    long nextIndex;
    volatile boolean sourceDone;
    int workersLeft;

    State(boolean ordered, int capacity, int workers) {
      this.ordered = ordered;
      this.tokens = capacity;
      this.workersLeft = workers;
    }

    /** Up to {@code wanted} tokens, waiting while none are free; 0 when the stage is over. */
    int acquire(int wanted) {
      lock.lock();
      try {
        while (tokens == 0 && !stopped && !sourceDone) {
          tokensFree.await();
        }
        if (stopped || sourceDone) {
          return 0;
        }
        int got = Math.min(wanted, tokens);
        tokens -= got;
        return got;
      } catch (InterruptedException e) {
        return 0;
      } finally {
        lock.unlock();
      }
    }

    void release(int unused) {
      if (unused == 0) {
        return;
      }
      lock.lock();
      try {
        tokens += unused;
        tokensFree.signalAll();
      } finally {
        lock.unlock();
      }
    }

    /** Called under {@link #sourceLock} when the source has no more items. */
    void sourceEnded(long chunks) {
      lock.lock();
      try {
        sourceDone = true;
        totalChunks = chunks;
        ready.signalAll();
        tokensFree.signalAll();
      } finally {
        lock.unlock();
      }
    }

    void deposit(long seq, Object[] items, int size, int unused) {
      lock.lock();
      try {
        if (unused > 0) {
          tokens += unused;
          tokensFree.signalAll();
        }
        if (stopped) {
          return;
        }
        Result r = new Result(items, size);
        queued += size;
        if (ordered) {
          bySeq.put(seq, r);
          if (seq == consumed) {
            ready.signal();
          }
        } else {
          arrived.add(r);
          ready.signal();
        }
      } finally {
        lock.unlock();
      }
    }

    void fail(StageFailedException e) {
      lock.lock();
      try {
        if (failure == null && !stopped) {
          failure = e;
        }
        stopped = true;
        ready.signalAll();
        tokensFree.signalAll();
      } finally {
        lock.unlock();
      }
    }

    @Nullable Result take(StageCounters counters) {
      lock.lock();
      long waitingSince = 0;
      try {
        while (true) {
          if (failure != null) {
            throw failure.rethrownHere();
          }
          Result r = ordered ? bySeq.remove(consumed) : arrived.poll();
          if (r != null) {
            consumed++;
            queued -= r.size;
            tokens += r.size;
            tokensFree.signalAll();
            return r;
          }
          if ((totalChunks >= 0 && consumed >= totalChunks) || stopped) {
            return null;
          }
          if (waitingSince == 0) {
            waitingSince = System.nanoTime();
          }
          ready.await();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StageFailedException(counters.name, StageFailedException.NO_SAMPLE, e);
      } finally {
        if (waitingSince != 0) {
          counters.consumerWait.add(System.nanoTime() - waitingSince);
        }
        lock.unlock();
      }
    }

    void stop() {
      lock.lock();
      try {
        stopped = true;
        bySeq.clear();
        arrived.clear();
        queued = 0;
        ready.signalAll();
        tokensFree.signalAll();
      } finally {
        lock.unlock();
      }
    }

    /** True for the last worker to leave, which then closes the source. */
    boolean leave() {
      lock.lock();
      try {
        return --workersLeft == 0;
      } finally {
        lock.unlock();
      }
    }
  }

  /** The per-worker {@link SampleContext}, reused from sample to sample. */

  /** One worker's loop: take tokens, pull a chunk, map it, deposit it. */
  private static final class Worker<T, R> implements Runnable {
    private final String name;
    private final State state;
    private final StageCounters counters;
    private final PipelineIterator<? extends T> source;
    private final ContextMapper<? super T, ? extends R> mapper;
    private final SeededContext context;
    private final ChunkPacer pacer;

    Worker(String name, State state, StageCounters counters, PipelineIterator<? extends T> source,
        ContextMapper<? super T, ? extends R> mapper, SeededContext context, ChunkPacer pacer) {
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
      }
    }

    /** One chunk; false when this worker should stop. */
    private boolean step() {
      long t0 = System.nanoTime();
      int wanted = state.acquire(pacer.target());
      long t1 = System.nanoTime();
      counters.blockedOutput.add(t1 - t0);
      if (wanted == 0) {
        return false;
      }
      Object[] items = new Object[wanted];
      int n = 0;
      long seq = -1;
      long start;
      state.sourceLock.lock();
      try {
        if (state.sourceDone || state.stopped) {
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
          if (!state.stopped) {
            state.fail(StageFailedException.of("source of " + name, start + n, t));
          }
          return false;
        }
        state.nextIndex += n;
        if (n > 0) {
          seq = state.nextSeq++;
        }
        if (!more) {
          state.sourceEnded(state.nextSeq);
        }
      } finally {
        state.sourceLock.unlock();
      }
      long t2 = System.nanoTime();
      counters.waitInput.add(t2 - t1);
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
          if (!state.stopped) {
            state.fail(StageFailedException.of(name, start + j, t));
          }
          return false;
        }
      }
      long t3 = System.nanoTime();
      counters.busy.add(t3 - t2);
      counters.items.add(n);
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
