package dev.minibatch.runtime.internal.pipeline;

import dev.minibatch.runtime.pipeline.Generator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.function.Supplier;

/**
 * One producer thread running a {@link Generator} into a bounded {@link Channel}; this object is
 * the consumer's end. The thread never references this object, so an iterator dropped by its user
 * becomes unreachable and the {@link ThreadCleaner} stops the thread.
 */
final class ProducerStage<T> extends ChunkedStage<T> {
  private final Channel channel;
  private final StageCounters counters;
  private final Supplier<PipelineStats> upstream;

  private ProducerStage(Channel channel, StageCounters counters, Supplier<PipelineStats> upstream,
      Workers workers) {
    super(workers, new Shutdown(channel, workers, counters));
    this.channel = channel;
    this.counters = counters;
    this.upstream = upstream;
  }

  /**
   * Starts {@code body} on a new thread.
   *
   * @param capacity the queue bound in items; 0 for unbounded
   * @param onExit run on the producer thread when it ends, however it ends (closes sources)
   * @param upstream the stats of the stages feeding {@code body}
   */
  static <T> ProducerStage<T> start(String name, int capacity, Generator<T> body, Runnable onExit,
      Supplier<PipelineStats> upstream) {
    return start(name, new Channel(name, capacity, 1, false), body, onExit, upstream);
  }

  /**
   * Starts {@code body} on a new thread that hands each item over and waits until the consumer has
   * taken it: the producer prepares item {@code k + 1} while the consumer holds item {@code k}, and
   * never more (prefetching into a ring of two reused buffers).
   */
  static <T> ProducerStage<T> handOff(String name, Generator<T> body, Runnable onExit, Supplier<PipelineStats> upstream) {
    return start(name, new Channel(name, 1, 1, true), body, onExit, upstream);
  }

  private static <T> ProducerStage<T> start(String name, Channel channel, Generator<T> body, Runnable onExit,
      Supplier<PipelineStats> upstream) {
    StageCounters counters = channel.counters();
    Workers workers = new Workers(name);
    ProducerStage<T> stage = new ProducerStage<>(channel, counters, upstream, workers);
    ChunkPacer pacer = new ChunkPacer(ChunkPacer.maxChunkFor(channel.capacity(), 1));
    workers.start(() -> produce(name, channel, counters, pacer, body, onExit));
    return stage;
  }

  private static <T> void produce(String name, Channel channel, StageCounters counters,
      ChunkPacer pacer, Generator<T> body, Runnable onExit) {
    ChunkWriter<T> out = new ChunkWriter<>(channel, counters, pacer);
    try {
      body.generate(out);
      out.flush();
      channel.finish();
    } catch (Channel.Stopped stopped) {
      // The consumer has gone; nothing to report.
    } catch (Throwable t) {
      if (!channel.isClosed()) {
        channel.fail(StageFailedException.of(name, out.index(), t));
      }
    } finally {
      counters.ended();
      try {
        onExit.run();
      } catch (RuntimeException e) {
        if (!channel.isClosed()) {
          channel.fail(StageFailedException.of(name, StageFailedException.NO_SAMPLE, e));
        }
      }
    }
  }

  @Override
  boolean takeChunk() {
    Channel.Chunk chunk = channel.take();
    if (chunk == null) {
      return false;
    }
    serve(chunk.items(), chunk.size());
    return true;
  }

  @Override
  public PipelineStats stats() {
    return upstream.get().plus(counters.snapshot());
  }

  /** Stops the stage; holds no reference to the iterator. */
  private record Shutdown(Channel channel, Workers workers, StageCounters counters) implements Runnable {
    @Override
    public void run() {
      channel.close();
      workers.stop();
      counters.ended();
    }
  }
}
