package dev.minibatch.runtime.internal.pipeline;

import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.pipeline.SampleContext;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * The {@link SampleContext} a worker reuses from sample to sample: {@link #at(long)} moves it to
 * the next sample, and {@link #random()} is created only if the mapper asks for it, seeded from
 * (seed, epoch, index) alone. Used by the pipeline's parallel map and by the file providers'
 * reader threads, so both give a sample the same random stream.
 */
public final class SeededContext implements SampleContext {
  private final long seed;
  private final int epoch;
  private long index;
  private @Nullable SplittableRandom random;

  /** A context for the samples of {@code epoch} under {@code seed}. */
  public SeededContext(long seed, int epoch) {
    this.seed = seed;
    this.epoch = epoch;
  }

  /** Moves to the sample at {@code index}; its random stream starts afresh. */
  public void at(long index) {
    this.index = index;
    this.random = null;
  }

  @Override
  public long index() {
    return index;
  }

  @Override
  public int epoch() {
    return epoch;
  }

  /** The seed the samples' random streams derive from. */
  public long seed() {
    return seed;
  }

  @Override
  public SplittableRandom random() {
    SplittableRandom r = random;
    if (r == null) {
      r = new SplittableRandom(Seeds.derive(seed, epoch, index));
      random = r;
    }
    return r;
  }
}
