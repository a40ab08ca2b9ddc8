package dev.minibatch.shards.internal;

import dev.minibatch.SampleSchema;
import dev.minibatch.runtime.AbstractBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.internal.SampleBatcher;
import dev.minibatch.runtime.internal.SequenceOptions;
import dev.minibatch.runtime.internal.engine.SequenceFields;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.io.image.ImageDecoders;
import java.util.List;
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
        @Nullable Variable<S> variable, @Nullable Images images);

    /** {@link #writeEncoded}. */
    void writeEncoded(Object segment, BatchProvider<? extends Batch> provider, List<SampleSchema.Field> fields,
        EncodedBytes bytes, long base);
  }

  /**
   * The encoded-image members of a generated sample: its fields with their encodings (data, then
   * labels) and the builder's image settings, which decode them.
   */
  public record Images(ImageDecoders decoders, List<SampleSchema.Field> fields) {}

  /** A generated sample's encoded bytes: member {@code field}'s (its place in the fields) of sample {@code sample}. */
  @FunctionalInterface
  public interface EncodedBytes {
    /** The bytes, or null when the sample has none (an error naming it). */
    byte @Nullable [] bytes(long sample, int field);
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
   * Called by the class initialisation of {@code ShardProvider.Builder} and {@code ShardWriter} (either
   * may be the first the generated code touches). (The builder registers
   * itself so that this package, which the generated code calls, does not depend on the shards
   * package, which depends on it.)
   */
  public static synchronized void register(Access a) {
    if (access == null) {
      access = Objects.requireNonNull(a, "access");
    }
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
    return access(source).batcher(source, given, defaults, providerName, layouts, batches, null, null);
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
        new Variable<>(fields, options, stepPadding), null);
  }

  /**
   * {@link #batcher(ProviderBuilder, Settings, Settings, String, IntFunction, Function)} for a generated
   * provider with encoded-image members, decoded with {@code images}'s settings.
   */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> batcher(ProviderBuilder<?> source,
      Settings given, Settings defaults, String providerName, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, Images images) {
    return access(source).batcher(source, given, defaults, providerName, layouts, batches, null, images);
  }

  /**
   * The variable-length overload, with encoded-image members too.
   */
  public static <S, B extends AbstractBatch<B>> SampleBatcher<S, B> batcher(ProviderBuilder<?> source,
      Settings given, Settings defaults, String providerName, IntFunction<BatchLayout> layouts,
      Function<BatchLayout, B> batches, SequenceFields<S> fields, SequenceOptions options, double[] stepPadding,
      Images images) {
    return access(source).batcher(source, given, defaults, providerName, layouts, batches,
        new Variable<>(fields, options, stepPadding), images);
  }

  /**
   * Appends one epoch of {@code provider} (a List provider over the samples, in order, that does not
   * decode its images) to {@code segment}, a {@code ShardWriter.Segment} (typed {@code Object} so that
   * this package does not depend on the shards package): the columns {@code fields}, every encoded-image column's
   * value the sample's own bytes ({@code bytes}, by the sample's index in the provider's source),
   * every other column the batch's row. The provider's samples are samples {@code base, base + 1, …}
   * of those written (for messages).
   *
   * @throws IllegalArgumentException naming the sample and member whose encoded bytes are missing or
   *     empty, or as {@link ShardWriter.Segment#write}
   */
  public static void writeEncoded(Object segment, BatchProvider<? extends Batch> provider,
      List<SampleSchema.Field> fields, EncodedBytes bytes, long base) {
    // A segment comes from a ShardWriter, whose class initialisation registered the access.
    Access a = access;
    if (a == null) {
      throw new IllegalStateException("internal: ShardWriter did not register its access");
    }
    a.writeEncoded(segment, provider, fields, bytes, base);
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
