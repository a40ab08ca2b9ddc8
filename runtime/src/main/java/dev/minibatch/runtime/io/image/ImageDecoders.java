package dev.minibatch.runtime.io.image;

import dev.minibatch.SampleSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * How a provider decodes the encoded-image fields of its samples (a shard set's image columns, a
 * generated sample's {@code @Provides(encoding = IMAGE_RGB) byte[]} members): per field, the
 * augmentation and normalisation groups of {@link ImageRecordProvider}, and whether JPEGs decode
 * reduced. Each encoded field gets one {@link ImageDecoder}, the image providers' one decode step,
 * whose output is the field's array: its shape, layout and dtype. Collects the settings of a
 * builder; not thread-safe.
 */
public final class ImageDecoders {
  private final Map<String, List<Consumer<ImageRecordProvider.Augment>>> augments = new LinkedHashMap<>();
  private final Map<String, List<Consumer<ImageRecordProvider.Normalize>>> normalizes = new LinkedHashMap<>();
  private boolean reducedDecode = true;

  /** No settings yet: decoded at the field's shape, no augmentation, JPEGs decoded reduced where they can be. */
  public ImageDecoders() {}

  /** Adds augmentation settings of the encoded field {@code name} (applied in the order given). */
  public void augment(String name, Consumer<ImageRecordProvider.Augment> options) {
    augments.computeIfAbsent(Objects.requireNonNull(name, "name"), c -> new ArrayList<>())
        .add(Objects.requireNonNull(options, "options"));
  }

  /** Adds normalisation settings of the encoded field {@code name} (applied in the order given). */
  public void normalize(String name, Consumer<ImageRecordProvider.Normalize> options) {
    normalizes.computeIfAbsent(Objects.requireNonNull(name, "name"), c -> new ArrayList<>())
        .add(Objects.requireNonNull(options, "options"));
  }

  /** As {@link ImageRecordProvider.Builder#reducedDecode(boolean)}; default true. */
  public void reducedDecode(boolean reduced) {
    this.reducedDecode = reduced;
  }

  /** Whether any setting was given. */
  public boolean any() {
    return !augments.isEmpty() || !normalizes.isEmpty() || !reducedDecode;
  }

  /**
   * Per field, its decoder (null for a field that is not an encoded image) for sample indices below
   * {@code samples} ({@link ImageDecoder#UNCOUNTED} for a stream).
   *
   * @param where what holds the fields, for messages ({@code "the shard set /data/train"})
   * @throws IllegalArgumentException if a setting names a field that is not an encoded image, or
   *     the settings do not fit the field (a crop larger than it, a mean of other channels, …)
   */
  public @Nullable ImageDecoder[] decoders(List<SampleSchema.Field> fields, int samples, String where) {
    List<String> images = fields.stream().filter(f -> f.encoding().image()).map(SampleSchema.Field::name).toList();
    for (String named : names()) {
      if (!images.contains(named)) {
        throw new IllegalArgumentException("augment and normalize name encoded images; '" + named + "' is not one in "
            + where + " (its encoded images: " + images + ", all fields: "
            + fields.stream().map(SampleSchema.Field::name).toList() + ")");
      }
    }
    @Nullable ImageDecoder[] out = new ImageDecoder[fields.size()];
    for (int i = 0; i < out.length; i++) {
      SampleSchema.Field f = fields.get(i);
      if (!f.encoding().image()) {
        continue;
      }
      boolean last = f.layout().equals("NHWC");
      ImageDecoder.Builder b = ImageDecoder.builder()
          .dataShape(f.encoding().channels(), (int) f.sampleShape().dim(last ? 0 : 1),
              (int) f.sampleShape().dim(last ? 1 : 2))
          .channelsLast(last).dtype(f.dtype()).reducedDecode(reducedDecode).samples(samples);
      augments.getOrDefault(f.name(), List.of()).forEach(b::augment);
      normalizes.getOrDefault(f.name(), List.of()).forEach(b::normalize);
      try {
        out[i] = b.build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("'" + f.name() + "' (" + f + "): " + e.getMessage(), e);
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
