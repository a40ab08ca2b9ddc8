package dev.minibatch.runtime.io.mnist;

import dev.minibatch.DType;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.internal.engine.RowSource;
import dev.minibatch.runtime.internal.io.FileEngine;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.io.FileBuilder;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.FileProvider;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.idx.IdxFile;
import dev.minibatch.runtime.io.idx.IdxFile.IdxArray;
import dev.minibatch.shape.Shape;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * MNIST images and labels (MXNet's {@code MNISTIter}): data {@code "data"} float32 of shape {@code
 * (batch, 1, rows, cols)} or, flat, {@code (batch, rows * cols)}, pixels scaled by {@link
 * Builder#scale(float)} (default 1/255; MXNet divides by 256); label {@code "softmax_label"} of
 * shape {@code (batch)}, float32 by default as in MXNet.
 *
 * <pre>{@code
 * MnistProvider train = MnistProvider.builder()
 *     .image(dir.resolve("train-images-idx3-ubyte.gz"))
 *     .label(dir.resolve("train-labels-idx1-ubyte.gz"))
 *     .batchSize(100).shuffle(true).seed(0).flat(true)
 *     .build();
 * }</pre>
 *
 * <p>The pixels are kept as the file's bytes (7.8 MB for t10k rather than 31 MB of floats) and
 * decoded times the scale straight into each batch buffer as it is filled.
 *
 * <p>Unlike MXNet, the files are checked: magic numbers 2051 and 2049, the header's sizes against
 * the file length, and equal image and label counts.
 */
public final class MnistProvider extends FileProvider {
  /** The data name (MXNet's). */
  public static final String DATA_NAME = ArrayDataProvider.DEFAULT_DATA_NAME;
  /** The label name (MXNet's). */
  public static final String LABEL_NAME = ArrayDataProvider.DEFAULT_LABEL_NAME;

  private MnistProvider(Sampling sampling, Map<String, RowSource> data, Map<String, RowSource> labels) {
    super(new FileEngine("MnistProvider", data, labels, sampling));
  }


  /**
   * The {@link Format} of idx files (MNIST's format): an images file with the labels file beside it (or {@code Options.labels}) as a {@code MnistProvider}, any other idx array as an {@code ArrayDataProvider}: what
   * {@code minibatch inspect}, {@code validate} and {@code bench} use.
   */
  public static Format format() {
    return new IdxFormat();
  }

  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds {@link MnistProvider}s; the sampling settings are {@link ProviderBuilder}'s. */
  public static final class Builder extends FileBuilder<Builder> {
    private @Nullable Path image;
    private @Nullable Path label;
    private boolean flat;
    private float scale = 1f / 255;
    private DType labelType = DType.FLOAT32;

    /** MNISTIter's default batch size, 128. */
    private Builder() {
      batchSize(128);
    }

    /** The image file (MXNet {@code image}), idx3-ubyte, raw or gzip. Required. */
    public Builder image(Path image) {
      this.image = image;
      return this;
    }

    /** The label file (MXNet {@code label}), idx1-ubyte, raw or gzip. Required. */
    public Builder label(Path label) {
      this.label = label;
      return this;
    }

    /** Flatten each image to {@code rows * cols} values (MXNet {@code flat}); default false: (1, rows, cols). */
    public Builder flat(boolean flat) {
      this.flat = flat;
      return this;
    }

    /** The factor applied to each pixel (0..255); default 1/255. MXNet's MNISTIter uses 1/256. */
    public Builder scale(float scale) {
      this.scale = scale;
      return this;
    }

    /** The label type, FLOAT32 (default, as MXNet) or INT32. */
    public Builder labelType(DType type) {
      if (type != DType.FLOAT32 && type != DType.INT32) {
        throw new IllegalArgumentException("MNIST labels are FLOAT32 or INT32, got " + type);
      }
      this.labelType = type;
      return this;
    }

    /**
     * Reads both files and builds the provider.
     *
     * @throws IllegalStateException if a file was not set
     * @throws FileFormatException naming the file for a bad magic number, a length that differs from
     *     the header, an extent of 0, corrupt gzip data, or different image and label counts
     */
    public MnistProvider build() {
      Sampling sampling = Sampling.resolve(settings());
      Path img = Objects.requireNonNull(image, "MnistProvider: set image(path)");
      Path lab = Objects.requireNonNull(label, "MnistProvider: set label(path)");
      IdxArray images = IdxFile.read(img, IdxFile.MNIST_IMAGES_MAGIC);
      images.checkNotEmpty();
      IdxArray labels = IdxFile.read(lab, IdxFile.MNIST_LABELS_MAGIC);
      labels.checkNotEmpty();
      if (images.count() != labels.count()) {
        throw new FileFormatException(lab.toString(), "holds " + labels.count() + " labels but " + img + " holds "
            + images.count() + " images");
      }
      int[] d = images.dims();
      Shape sample = flat ? Shape.of((long) d[1] * d[2]) : Shape.of(1, d[1], d[2]);
      // The pixels stay the file's bytes and are decoded (times the scale) into each batch buffer.
      Map<String, RowSource> data = new LinkedHashMap<>();
      data.put(dataName(), RowSource.of(images.rows(sample, DType.FLOAT32, scale)));
      Map<String, RowSource> label = new LinkedHashMap<>();
      label.put(labelName(), RowSource.of(labels.rows(Shape.scalar(), labelType, 1f)));
      return new MnistProvider(sampling, data, label);
    }
  }
}
