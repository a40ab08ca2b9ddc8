package dev.minibatch.runtime.pipeline;

import dev.minibatch.runtime.check.Check;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Settings of a parallel map stage. Made with {@link #builder()}; every setting has a default.
 *
 * @param name the stage's name in stats and failures; default {@code "xmap"}
 * @param workers the number of worker threads, at least 1; default the number of processors
 * @param bufferSize how many mapped or in-flight items may wait for the consumer beyond one per
 *     worker (Paddle's {@code buffer_size}), at least 1; default 256. Items cross in chunks no
 *     larger than {@code (bufferSize + workers) / (2 * workers)}, so a small buffer also means
 *     small chunks.
 * @param ordered keep the source order (default true); false hands results over as they are done
 * @param seed the seed of {@link SampleContext#random()}; null draws one per stage
 */
public record ParallelOptions(String name, int workers, int bufferSize, boolean ordered, @Nullable Long seed) {
  /** Checks the settings. */
  public ParallelOptions {
    Check.atLeast("workers", workers, 1);
    Check.atLeast("bufferSize", bufferSize, 1);
    if (name.isEmpty()) {
      throw new IllegalArgumentException("a stage needs a non-empty name");
    }
  }

  /** The defaults. */
  public static ParallelOptions defaults() {
    return builder().build();
  }

  /** Options for {@code workers} workers, a buffer of {@code bufferSize}, in order or not. */
  public static ParallelOptions of(int workers, int bufferSize, boolean ordered) {
    return builder().workers(workers).bufferSize(bufferSize).ordered(ordered).build();
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Options made by applying {@code settings} to a fresh builder. */
  public static ParallelOptions of(Consumer<Builder> settings) {
    Builder b = builder();
    settings.accept(b);
    return b.build();
  }

  /** Builds {@link ParallelOptions}. */
  public static final class Builder {
    private String name = "xmap";
    private int workers = Runtime.getRuntime().availableProcessors();
    private int bufferSize = 256;
    private boolean ordered = true;
    private @Nullable Long seed;

    private Builder() {}

    /** The stage's name. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** The number of worker threads. */
    public Builder workers(int workers) {
      this.workers = workers;
      return this;
    }

    /** Items that may wait beyond one per worker. */
    public Builder bufferSize(int bufferSize) {
      this.bufferSize = bufferSize;
      return this;
    }

    /** Whether to keep the source order. */
    public Builder ordered(boolean ordered) {
      this.ordered = ordered;
      return this;
    }

    /** The seed of {@link SampleContext#random()}. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** The options. */
    public ParallelOptions build() {
      return new ParallelOptions(name, workers, bufferSize, ordered, seed);
    }
  }
}
