package dev.minibatch.shards;

import dev.minibatch.runtime.io.image.ImageDecoder;
import dev.minibatch.runtime.io.image.ImageDecoders;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.shards.ShardColumns.Column;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * How a shard provider decodes a set's encoded-image columns: the runtime's {@link ImageDecoders}
 * (the settings every image provider shares, one decoder per encoded field) over the columns'
 * fields, so shard sets and generated samples decode through one implementation.
 */
final class ShardImages {
  private final ImageDecoders decoders;

  /** Settings given on a {@code ShardProvider.Builder}. */
  ShardImages() {
    this(new ImageDecoders());
  }

  /** Settings given elsewhere: a generated provider's builder, for its encoded-image members. */
  ShardImages(ImageDecoders decoders) {
    this.decoders = decoders;
  }

  void augment(String column, Consumer<ImageRecordProvider.Augment> options) {
    decoders.augment(column, options);
  }

  void normalize(String column, Consumer<ImageRecordProvider.Normalize> options) {
    decoders.normalize(column, options);
  }

  void reducedDecode(boolean reduced) {
    decoders.reducedDecode(reduced);
  }

  /** Whether any setting was given. */
  boolean any() {
    return decoders.any();
  }

  /**
   * Per column, its decoder (null for a column that is not an encoded image) for {@code samples}
   * provider-wide samples.
   *
   * @throws IllegalArgumentException if a setting names a column that is not an encoded image, or
   *     the settings do not fit the column
   */
  @Nullable ImageDecoder[] decoders(List<Column> columns, int samples, String set) {
    return decoders.decoders(columns.stream().map(Column::field).toList(), samples, "the shard set " + set);
  }
}
