package dev.minibatch.shards;

import dev.minibatch.SampleSchema;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.internal.SampleBatcher;
import dev.minibatch.shards.internal.GeneratedShards;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * What generated code reaches through {@link GeneratedShards}: a shard source's batches for a
 * generated provider, and a segment's write of a generated sample with encoded images. Registered
 * by the class initialisation of {@link ShardProvider.Builder} and of {@link ShardWriter}, the two
 * classes generated code touches first.
 */
final class GeneratedAccess implements GeneratedShards.Access {
  private GeneratedAccess() {}

  static void register() {
    GeneratedShards.register(new GeneratedAccess());
  }

  @Override
  public <S, B extends AbstractBatch<B>> SampleBatcher<S, B> batcher(ProviderBuilder<?> source, Settings given,
      Settings defaults, String providerName, IntFunction<BatchLayout> layouts, Function<BatchLayout, B> batches,
      GeneratedShards.@Nullable Variable<S> variable, GeneratedShards.@Nullable Images images) {
    if (!(source instanceof ShardProvider.Builder b)) {
      throw new IllegalArgumentException(providerName + ": shards(...) takes a ShardProvider.Builder, got "
          + source.getClass().getName());
    }
    return b.batcher(given, defaults, providerName, layouts, batches, variable, images);
  }

  @Override
  public void writeEncoded(Object segment, BatchProvider<? extends Batch> provider, List<SampleSchema.Field> fields,
      GeneratedShards.EncodedBytes bytes, long base) {
    ((ShardWriter.Segment) segment).writeEncoded(provider, fields, bytes, base);
  }
}
