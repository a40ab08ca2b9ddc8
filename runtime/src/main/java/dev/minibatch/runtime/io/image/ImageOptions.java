package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.io.Format;
import java.util.function.Consumer;

/**
 * The image formats' own options ({@link Format.Options.Builder#with}), read by {@link
 * ImageRecordProvider#format()} and {@link ImageRecordProvider#folderFormat()}: settings applied to
 * the {@link ImageRecordProvider.Builder} after the format's own (the source, the first image's
 * size as {@code dataShape}, the label width and the batch settings), so they may change the
 * output shape, the augmentation, the normalisation, the layout or the element type. {@code
 * minibatch show} passes its augmentation flags this way.
 *
 * <pre>{@code
 * Format.Options options = Format.Options.builder()
 *     .with(new ImageOptions(b -> b.dataShape(3, 32, 32).augment(a -> a.randMirror(true))))
 *     .build();
 * }</pre>
 *
 * @param builder applied to the provider's builder before it is built
 */
public record ImageOptions(Consumer<ImageRecordProvider.Builder> builder) implements Format.OwnOptions {
  /** Nothing changed: the formats read at the first image's size, without augmentation. */
  public static final ImageOptions NONE = new ImageOptions(b -> {});
}
