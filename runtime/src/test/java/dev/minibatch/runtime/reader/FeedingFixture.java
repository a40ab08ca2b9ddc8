package dev.minibatch.runtime.reader;

import dev.minibatch.DType;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderFixture;
import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.reader.Readers.Tuple;
import dev.minibatch.shape.Shape;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@link FeedingProvider} over a reader of tuples {@code (float[] data, Integer label)} encoded by
 * {@link IndexedSamples}, fed as {@code data} and {@code softmax_label}. Plain: {@code range} then
 * {@code map} on the consumer's thread. Threaded: the tuples are made by a two-worker {@code xmap}
 * (stage {@code "encode"}) and read ahead by {@code buffered}, so every epoch runs engine threads.
 * Streaming: no shuffle, no even shards; resumes by replay.
 */
final class FeedingFixture implements ProviderFixture {
  private final boolean threaded;

  FeedingFixture(boolean threaded) {
    this.threaded = threaded;
  }

  @Override
  public Set<Capability> capabilities() {
    return threaded ? EnumSet.of(Capability.THREADED, Capability.FAILING_SAMPLE, Capability.RESUME)
        : EnumSet.of(Capability.FAILING_SAMPLE, Capability.RESUME);
  }

  /** Shapes and types inferred from the first tuple, which {@code build()} reads. */
  @Override
  public FeedingProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
    return FeedingProvider.builder(reader(numSamples, -1, null)).data("data", 0).label("softmax_label", 1)
        .apply(settings).build();
  }

  /**
   * Shapes and types declared, so {@code build()} reads nothing: the failure must reach the
   * consumer's iteration (a peek at the first tuple would already meet it, since the parallel map
   * works ahead and reports the first failure before the samples in front of it).
   */
  @Override
  public FeedingProvider buildFailing(int numSamples, int failingSample, RuntimeException failure,
      Consumer<? super ProviderBuilder<?>> settings) {
    return FeedingProvider.builder(reader(numSamples, failingSample, failure))
        .data("data", 0, Shape.of(2), DType.FLOAT32)
        .label("softmax_label", 1, Shape.scalar(), DType.INT32)
        .apply(settings).build();
  }

  @Override
  public boolean holds(Batch batch, int row, long sample) {
    return IndexedSamples.holds(batch, row, sample);
  }

  /** The samples {@code 0 .. n - 1}; making sample {@code failing} throws {@code failure}. */
  private Reader<Tuple> reader(int n, int failing, @Nullable RuntimeException failure) {
    if (!threaded) {
      return Readers.range(0, n).map(i -> encode(i, failing, failure));
    }
    return Readers.range(0, n)
        .xmap(ParallelOptions.of(o -> o.name("encode").workers(2).bufferSize(8)), (i, ctx) -> encode(i, failing, failure))
        .buffered(8);
  }

  private static Tuple encode(int i, int failing, @Nullable RuntimeException failure) {
    if (i == failing && failure != null) {
      throw failure;
    }
    return Tuple.of(IndexedSamples.data(i), IndexedSamples.label(i));
  }
}
