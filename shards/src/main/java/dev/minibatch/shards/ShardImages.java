package dev.minibatch.shards;

import dev.minibatch.runtime.io.image.ImageDecoder;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.shards.ShardColumns.Column;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * How a provider decodes a shard set's encoded-image columns: per column, the augmentation and
 * normalisation groups of {@link ImageRecordProvider}, and whether JPEGs decode reduced. Each
 * column gets one {@link ImageDecoder} (the image providers' one decode step), its output the
 * column's field: its shape, layout and dtype.
 */
final class ShardImages {
  private final Map<String, List<Consumer<ImageRecordProvider.Augment>>> augments = new LinkedHashMap<>();
  private final Map<String, List<Consumer<ImageRecordProvider.Normalize>>> normalizes = new LinkedHashMap<>();
  private boolean reducedDecode = true;

  void augment(String column, Consumer<ImageRecordProvider.Augment> options) {
    augments.computeIfAbsent(Objects.requireNonNull(column, "column"), c -> new ArrayList<>())
        .add(Objects.requireNonNull(options, "options"));
  }

  void normalize(String column, Consumer<ImageRecordProvider.Normalize> options) {
    normalizes.computeIfAbsent(Objects.requireNonNull(column, "column"), c -> new ArrayList<>())
        .add(Objects.requireNonNull(options, "options"));
  }

  void reducedDecode(boolean reduced) {
    this.reducedDecode = reduced;
  }

  /** Whether any setting was given (a generated provider, which does not decode images, refuses them). */
  boolean any() {
    return !augments.isEmpty() || !normalizes.isEmpty() || !reducedDecode;
  }

  /**
   * Per column, its decoder (null for a column that is not an encoded image) for {@code samples}
   * provider-wide samples.
   *
   * @throws IllegalArgumentException if a setting names a column that is not an encoded image, or
   *     the settings do not fit the column
   */
  @Nullable ImageDecoder[] decoders(List<Column> columns, int samples, String set) {
    List<String> images = columns.stream().filter(Column::encoded).map(Column::name).toList();
    for (String named : names()) {
      if (!images.contains(named)) {
        throw new IllegalArgumentException("augment and normalize name columns of encoded images; '" + named + "' is not"
            + " one in the shard set " + set + " (its image columns: " + images + ", all columns: "
            + columns.stream().map(Column::name).toList() + ")");
      }
    }
    @Nullable ImageDecoder[] out = new ImageDecoder[columns.size()];
    for (int i = 0; i < out.length; i++) {
      Column c = columns.get(i);
      if (!c.encoded()) {
        continue;
      }
      boolean last = c.field().layout().equals("NHWC");
      int channels = c.field().encoding().channels();
      ImageDecoder.Builder b = ImageDecoder.builder()
          .dataShape(channels, (int) c.shape().dim(last ? 0 : 1), (int) c.shape().dim(last ? 1 : 2))
          .channelsLast(last).dtype(c.dtype()).reducedDecode(reducedDecode).samples(samples);
      augments.getOrDefault(c.name(), List.of()).forEach(o -> b.augment(o));
      normalizes.getOrDefault(c.name(), List.of()).forEach(o -> b.normalize(o));
      try {
        out[i] = b.build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("column '" + c.name() + "' (" + c.field() + "): " + e.getMessage(), e);
      }
    }
    return out;
  }

  private List<String> names() {
    List<String> all = new ArrayList<>(augments.keySet());
    normalizes.keySet().stream().filter(n -> !all.contains(n)).forEach(all::add);
    return all;
  }
}
