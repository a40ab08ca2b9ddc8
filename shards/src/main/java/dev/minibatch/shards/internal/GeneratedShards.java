package dev.minibatch.shards.internal;

import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.internal.SampleBatcher;
import dev.minibatch.runtime.internal.SequenceOptions;
import dev.minibatch.runtime.internal.engine.SequenceFields;
import dev.minibatch.runtime.ProviderBuilder;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * NOT for applications: what a generated provider's {@code shards(...)} source delegates to. The
 * batches of a {@code ShardProvider.Builder}'s shard sets, read with its reading settings (sets,
 * weights, {@code samplesPerEpoch}, window, cache, read-ahead, readers, configuration) and cut by
 * the settings of both builders, {@linkplain Settings#merge merged}: a setting made on either is
 * used, one made differently on both is refused, so none is dropped.
 */
public final class GeneratedShards {
  /** How this package reaches the shards package's builder without making its reading public. */
  public interface Access {
    /** {@link #batcher(ProviderBuilder, Settings, Settings, String, IntFunction, Function)}. */
    <S, B extends AbstractBatch<B>> SampleBatcher<S, B> batcher(ProviderBuilder<?> source, Settings given,
        Settings defaults, String providerName, IntFunction<BatchLayout> layouts, Function<BatchLayout, B> batches,
        @Nullable Variable<S> variable);
  }

  /**
   * The variable-length members of a generated sample.
   *
   * @param fields the members' declarations
   * @param options the builder's sequence settings
   * @param stepPadding each array's padding value, in layout order
   */
  public record Variable<S>(SequenceFields<S> fields, SequenceOptions options, double[] stepPadding) {}

  private static volatile @Nullable Access access;

  private GeneratedShards() {}

  /**
   * Called once by {@code ShardProvider.Builder}'s class initialisation. (The builder registers
   * itself so that this package, which the generated code calls, does not depend on the shards
   * package, which depends on it.)
   */
  public static void register(Access a) {
    access = Objects.requireNonNull(a, "access");
  }

  /**
   * The batches of {@code source}'s shard sets under the settings given to the generated builder,
   * {@code given}, merged with those given to {@code source}, over both builders' defaults.
   *
   * @throws IllegalArgumentException if the two builders set one setting differently, or the sets'
   *     columns are not the arrays of {@code layouts}, in order
   * @throws dev.minibatch.runtime.io.FileFormatException if an index is missing or malformed
   */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> batcher(ProviderBuilder<?> source,
      Settings given, Settings defaults, String providerName, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches) {
    return access(source).batcher(source, given, defaults, providerName, layouts, batches, null);
  }

  /**
   * {@link #batcher(ProviderBuilder, Settings, Settings, String, IntFunction, Function)} for a generated
   * provider with variable-length members, padded by the runtime's rule as from a List source.
   *
   * @throws IllegalArgumentException for buckets (the samples' lengths are not read before an
   *     epoch), or as the other overload
   */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> batcher(ProviderBuilder<?> source,
      Settings given, Settings defaults, String providerName, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, SequenceFields<S> fields, SequenceOptions options, double[] stepPadding) {
    return access(source).batcher(source, given, defaults, providerName, layouts, batches,
        new Variable<>(fields, options, stepPadding));
  }

  private static Access access(ProviderBuilder<?> source) {
    // Holding a ShardProvider.Builder means its class is initialised, which registers the access.
    Objects.requireNonNull(source, "source");
    Access a = access;
    if (a == null) {
      throw new IllegalStateException("internal: ShardProvider.Builder did not register its access");
    }
    return a;
  }
}
