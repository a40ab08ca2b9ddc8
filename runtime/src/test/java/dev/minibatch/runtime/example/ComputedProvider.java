package dev.minibatch.runtime.example;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.spi.EngineProvider;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.shape.Shape;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.List;
import java.util.function.IntToDoubleFunction;

/**
 * A provider written on the runtime's batching engine (docs/engine.md): samples computed from
 * their index — data {@code (features)} float32 from {@code feature(i, k)}, label int32 {@code
 * label(i)} — with every shared setting (batch size, last-batch policy, shuffle, shards, padding,
 * resume) and the one-iteration-at-a-time rule, from a row writer and a builder; {@link
 * EngineProvider} delegates the provider's methods to the engine.
 */
public final class ComputedProvider extends EngineProvider<NamedBatch> {
  /** Feature {@code k} of sample {@code i}. */
  @FunctionalInterface
  public interface Feature {
    /** The value. */
    float at(int sample, int k);
  }

  private final BatchEngine<NamedBatch> engine;

  private ComputedProvider(Builder b, Sampling sampling) {
    int features = b.features;
    Feature feature = b.feature;
    IntToDoubleFunction label = b.label;
    BatchEngine.Builder<NamedBatch> e = BatchEngine.<NamedBatch>builder("ComputedProvider", b.samples, sampling)
        .layout(batch -> BatchLayout.of(
            List.of(DataDesc.of("data", batch, Shape.of(features), DType.FLOAT32, Role.DATA)),
            List.of(DataDesc.of("label", batch, Shape.scalar(), DType.INT32, Role.LABEL))))
        .batches(NamedBatch::new)
        // The row writer: rows [from, to) of the batch get samples indices[from .. to).
        .rows((indices, from, to, slot) -> {
          CollateTarget out = CollateTarget.of(slot);
          FloatBuffer data = out.floats(0);
          IntBuffer labels = out.ints(1);
          for (int r = from; r < to; r++) {
            for (int k = 0; k < features; k++) {
              data.put(r * features + k, feature.at(indices[r], k));
            }
            labels.put(r, (int) label.applyAsDouble(indices[r]));
          }
        })
        // Reader threads as the settings give them (readers(n), prefetchBuffer(n)), or none.
        .readers("computed");
    engine = e.build();
  }

  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  protected BatchEngine<NamedBatch> engine() {
    return engine;
  }

  /** Settings: the samples, plus everything {@link ProviderBuilder} shares. */
  public static final class Builder extends ProviderBuilder<Builder> {
    private int samples;
    private int features = 1;
    private Feature feature = (i, k) -> i;
    private IntToDoubleFunction label = i -> 0;

    private Builder() {}

    /** {@code samples} samples of {@code features} values each, computed by {@code feature}. */
    public Builder samples(int samples, int features, Feature feature) {
      this.samples = samples;
      this.features = features;
      this.feature = feature;
      return this;
    }

    /** The label of each sample. */
    public Builder label(IntToDoubleFunction label) {
      this.label = label;
      return this;
    }

    /** The provider. */
    public ComputedProvider build() {
      return new ComputedProvider(this, Sampling.resolve(settings()));
    }
  }
}
