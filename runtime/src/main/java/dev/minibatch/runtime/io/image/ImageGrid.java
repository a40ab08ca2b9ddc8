package dev.minibatch.runtime.io.image;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.io.Format.Report;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A picture of a batch: its images side by side in a PNG grid, each tile captioned with the
 * sample's label and index (torchvision's {@code make_grid}, tfds' {@code show_examples}); with an
 * original batch beside, each sample's original left of its augmented image. What {@code minibatch
 * show} writes.
 *
 * <pre>{@code
 * try (ImageRecordProvider train = ImageRecordProvider.builder()
 *         .pathImgrec(Path.of("train.rec")).dataShape(3, 224, 224).batchSize(16).seed(7)
 *         .augment(a -> a.resize(256).randCrop(true).randMirror(true))
 *         .build();
 *     BatchIterator<NamedBatch> it = train.iterator()) {
 *   ImageGrid.builder().from(train).columns(4).build().write(it.next(), Path.of("grid.png"));
 * }
 * }</pre>
 *
 * <p>The image array is the batch's data array of shape {@code (batch, c, h, w)}, {@code (batch, h,
 * w, c)} or {@code (batch, h, w)} with 1, 3 or 4 channels (RGB order; alpha is not drawn); the first
 * such one unless {@link Builder#data(String)} names it. A UINT8 array holds the pixels; a float
 * array holds {@code (pixel - mean) * scale / std}, which is undone ({@code v * std / scale + mean},
 * rounded and clamped to 0..255) with the normalisation of {@link Builder#from(ImageRecordProvider)}
 * or {@link Builder#normalization(float[], float[], float)} (default mean 0, std 1, scale 1: the
 * values are pixels). Padding rows are not drawn.
 *
 * <p>The layout, for readers of the picture: tiles of {@code w * s} by {@code h * s} pixels (each
 * pixel an {@code s x s} square, {@code s} the tile scale), {@value #GAP} pixels apart and from the
 * border, in rows of {@code columns} samples; with an original, a sample's cell is its original
 * tile, {@value #GAP} pixels, its augmented tile. Under each cell a caption strip {@value
 * #CAPTION} pixels high gives the label (its class name when known) and {@code #} the sample index.
 */
public final class ImageGrid {
  /** Pixels between tiles and around the grid. */
  public static final int GAP = 4;
  /** The height of a caption strip under each cell, when captions are on. */
  public static final int CAPTION = 16;
  private static final int BACKGROUND = 0x202020;
  private static final int TEXT = 0xffffff;
  /** The auto tile scale makes a tile's longer side at least this many pixels. */
  private static final int AUTO_SIDE = 96;
  private static final int FONT_SCALE = 2;

  private final int columns;
  private final int tileScale;
  private final boolean captions;
  private final @Nullable String data;
  private final @Nullable String label;
  private final @Nullable Boolean channelsLast;
  private final List<String> classes;
  private final float[] mean;
  private final float[] std;
  private final float scale;
  private final float @Nullable [] meanImage;

  private ImageGrid(Builder b) {
    this.columns = b.columns;
    this.tileScale = b.tileScale;
    this.captions = b.captions;
    this.data = b.data;
    this.label = b.label;
    this.channelsLast = b.channelsLast;
    this.classes = List.copyOf(b.classes);
    this.mean = b.mean.clone();
    this.std = b.std.clone();
    this.scale = b.scale;
    this.meanImage = b.meanImage;
  }

  /** A builder: 8 columns, tiles scaled up to at least 96 pixels, captions on. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The grid of {@code batch}'s samples.
   *
   * @throws IllegalArgumentException if the batch has no image array (the message names its arrays)
   */
  public BufferedImage render(Batch batch) {
    return draw(batch, null);
  }

  /**
   * The grid of {@code augmented}'s samples, each beside its original from {@code original}: the
   * same samples in the same rows (the same sampling settings and seed; only the augmentation
   * differs), normalised alike.
   *
   * @throws IllegalArgumentException if the batch has no image array, or the two batches hold
   *     other samples or shapes
   */
  public BufferedImage render(Batch augmented, Batch original) {
    return draw(augmented, original);
  }

  /**
   * Writes {@link #render(Batch)} to {@code png}.
   *
   * @throws java.io.UncheckedIOException naming the file if it cannot be written
   */
  public void write(Batch batch, Path png) {
    writePng(render(batch), png);
  }

  /**
   * Writes {@link #render(Batch, Batch)} to {@code png}.
   *
   * @throws java.io.UncheckedIOException naming the file if it cannot be written
   */
  public void write(Batch augmented, Batch original, Path png) {
    writePng(render(augmented, original), png);
  }

  private static void writePng(BufferedImage img, Path png) {
    try {
      if (!ImageIO.write(img, "png", png.toFile())) {
        throw new IOException("no PNG writer in javax.imageio");
      }
    } catch (IOException e) {
      throw IoFailure.of("write", png, e);
    }
  }

  /** The image array's geometry in one batch. */
  private record Images(INDArray array, boolean last, int channels, int height, int width) {}

  private BufferedImage draw(Batch batch, @Nullable Batch original) {
    Images images = images(batch);
    int n = batch.countSamples();
    if (n == 0) {
      throw new IllegalArgumentException("ImageGrid: the batch holds no samples (" + batch.pad() + " padding rows)");
    }
    Images before = null;
    if (original != null) {
      before = images(original);
      long[] a = Arrays.copyOf(batch.sampleIndices(), n);
      long[] o = Arrays.copyOf(original.sampleIndices(), Math.min(n, original.countSamples()));
      if (!Arrays.equals(a, o)) {
        throw new IllegalArgumentException("ImageGrid: the original batch holds samples " + Arrays.toString(o)
            + ", the augmented one " + Arrays.toString(a) + ": read both with the same sampling settings and seed");
      }
      if (before.channels() != images.channels() || before.height() != images.height()
          || before.width() != images.width()) {
        throw new IllegalArgumentException("ImageGrid: the original images are " + before.channels() + "x"
            + before.height() + "x" + before.width() + ", the augmented " + images.channels() + "x" + images.height()
            + "x" + images.width() + " (c x h x w): give both the same output shape");
      }
    }
    int s = tileScale > 0 ? tileScale : Math.max(1, (AUTO_SIDE + Math.max(images.height(), images.width()) - 1)
        / Math.max(images.height(), images.width()));
    int tileW = images.width() * s;
    int tileH = images.height() * s;
    int cellW = original == null ? tileW : 2 * tileW + GAP;
    int cellH = tileH + (captions ? CAPTION : 0);
    int cols = Math.min(columns, n);
    int rows = (n + cols - 1) / cols;
    long w = GAP + (long) cols * (cellW + GAP);
    long h = GAP + (long) rows * (cellH + GAP);
    if (w * h > Integer.MAX_VALUE / 4) {
      throw new IllegalArgumentException("ImageGrid: a grid of " + w + "x" + h + " pixels is too large; show fewer "
          + "samples or a smaller tile scale");
    }
    BufferedImage img = new BufferedImage((int) w, (int) h, BufferedImage.TYPE_INT_RGB);
    int[] bg = new int[(int) w];
    Arrays.fill(bg, BACKGROUND);
    for (int y = 0; y < h; y++) {
      img.setRGB(0, y, (int) w, 1, bg, 0, (int) w);
    }
    @Nullable INDArray labels = labels(batch);
    for (int i = 0; i < n; i++) {
      int x = GAP + (i % cols) * (cellW + GAP);
      int y = GAP + (i / cols) * (cellH + GAP);
      if (before != null) {
        tile(img, before, i, x, y, s);
        tile(img, images, i, x + tileW + GAP, y, s);
      } else {
        tile(img, images, i, x, y, s);
      }
      if (captions) {
        String text = caption(labels, i) + " #" + batch.sampleIndex(i);
        TinyFont.draw(img, text, x + 2, y + tileH + (CAPTION - TinyFont.HEIGHT * FONT_SCALE) / 2, FONT_SCALE, TEXT,
            x + cellW);
      }
    }
    return img;
  }

  /** Draws row {@code row}'s image with its top-left corner at ({@code x0}, {@code y0}), each pixel s x s. */
  private void tile(BufferedImage img, Images im, int row, int x0, int y0, int s) {
    INDArray sample = im.array().get(org.nd4j.linalg.indexing.NDArrayIndex.point(row));
    boolean raw = sample.dataType() == DataType.UINT8;
    float[] v = Nd4j.toFlattened('c', sample.castTo(DataType.FLOAT)).toFloatVector();
    int c = im.channels();
    int hh = im.height();
    int ww = im.width();
    int hw = hh * ww;
    int[] line = new int[ww * s];
    int[] rgb = new int[3];
    for (int i = 0; i < hh; i++) {
      for (int j = 0; j < ww; j++) {
        for (int k = 0; k < 3; k++) {
          int ch = c == 1 ? 0 : k;
          int at = im.last() ? (i * ww + j) * c + ch : ch * hw + i * ww + j;
          rgb[k] = raw ? Math.round(v[at]) : pixel(v[at], ch, i * ww + j, hw);
        }
        int p = rgb[0] << 16 | rgb[1] << 8 | rgb[2];
        Arrays.fill(line, j * s, j * s + s, p);
      }
      for (int dy = 0; dy < s; dy++) {
        img.setRGB(x0, y0 + i * s + dy, ww * s, 1, line, 0, ww * s);
      }
    }
  }

  /** The pixel a normalised value came from: the writer's {@code (p - mean) * scale / std} inverted, rounded, clamped. */
  private int pixel(float value, int channel, int at, int hw) {
    float[] img = meanImage;
    float m = img != null ? img[channel * hw + at] : mean[Math.min(channel, mean.length - 1)];
    float d = std[Math.min(channel, std.length - 1)];
    long p = Math.round((double) value * d / scale + m);
    return (int) Math.max(0, Math.min(255, p));
  }

  /** The caption's label: the class name when known, else the value(s). */
  private String caption(@Nullable INDArray labels, int row) {
    if (labels == null) {
      return "";
    }
    if (labels.rank() == 1) {
      double v = labels.getDouble(row);
      int k = (int) v;
      return k == v && k >= 0 && k < classes.size() ? classes.get(k) : Report.number(v);
    }
    INDArray r = labels.get(org.nd4j.linalg.indexing.NDArrayIndex.point(row));
    double[] vs = Nd4j.toFlattened(r).castTo(DataType.DOUBLE).toDoubleVector();
    StringBuilder sb = new StringBuilder("[");
    for (int k = 0; k < Math.min(3, vs.length); k++) {
      sb.append(k == 0 ? "" : ",").append(Report.number(vs[k]));
    }
    return sb.append(vs.length > 3 ? ",..]" : "]").toString();
  }

  private @Nullable INDArray labels(Batch batch) {
    if (label != null) {
      return batch.get(label);
    }
    List<INDArray> all = batch.label();
    return all.isEmpty() ? null : all.get(0);
  }

  /** The image array of {@code batch} and its geometry. */
  private Images images(Batch batch) {
    if (data != null) {
      Images im = geometry(batch.get(data));
      if (im == null) {
        throw new IllegalArgumentException("ImageGrid: " + data + " " + Report.shape(batch.get(data).shape())
            + " is not an image array: " + EXPECTED);
      }
      return im;
    }
    List<String> seen = new ArrayList<>();
    List<String> names = batch.names();
    List<INDArray> arrays = batch.data();
    for (int k = 0; k < arrays.size(); k++) {
      Images im = geometry(arrays.get(k));
      if (im != null) {
        return im;
      }
      seen.add(names.get(k) + " " + Report.shape(arrays.get(k).shape()) + " " + arrays.get(k).dataType());
    }
    throw new IllegalArgumentException("ImageGrid: no image array among the data (" + String.join(", ", seen) + "); "
        + EXPECTED);
  }

  private static final String EXPECTED = "an image array has shape (batch, c, h, w), (batch, h, w, c) or (batch, "
      + "h, w), with 1, 3 or 4 channels";

  /** The geometry of {@code a} as an image array, or null if it is none. */
  private @Nullable Images geometry(INDArray a) {
    long[] d = a.shape();
    if (a.rank() == 3 && d[1] > 0 && d[2] > 0) {
      return new Images(a, true, 1, (int) d[1], (int) d[2]);
    }
    if (a.rank() != 4) {
      return null;
    }
    boolean first = d[1] == 1 || d[1] == 3 || d[1] == 4;
    boolean last = d[3] == 1 || d[3] == 3 || d[3] == 4;
    boolean channelsLast = this.channelsLast != null ? this.channelsLast : !first && last;
    if (channelsLast ? !last : !first) {
      return null;
    }
    return channelsLast ? new Images(a, true, (int) d[3], (int) d[1], (int) d[2])
        : new Images(a, false, (int) d[1], (int) d[2], (int) d[3]);
  }

  /** Builds an {@link ImageGrid}; every setting is optional. */
  public static final class Builder {
    private int columns = 8;
    private int tileScale;
    private boolean captions = true;
    private @Nullable String data;
    private @Nullable String label;
    private @Nullable Boolean channelsLast;
    private List<String> classes = List.of();
    private float[] mean = {0};
    private float[] std = {1};
    private float scale = 1;
    private float @Nullable [] meanImage;

    private Builder() {}

    /** Samples per row of the grid, at least 1; default 8 (fewer when the batch holds fewer). */
    public Builder columns(int columns) {
      if (columns < 1) {
        throw new IllegalArgumentException("ImageGrid: columns must be >= 1, got " + columns);
      }
      this.columns = columns;
      return this;
    }

    /**
     * Each image pixel drawn as a {@code scale x scale} square (nearest neighbour, so the tile holds
     * the batch's values exactly), at least 1; default: the least scale that makes a tile's longer
     * side 96 pixels or more.
     */
    public Builder tileScale(int scale) {
      if (scale < 1) {
        throw new IllegalArgumentException("ImageGrid: tileScale must be >= 1, got " + scale);
      }
      this.tileScale = scale;
      return this;
    }

    /** Draw the caption strip (label and sample index) under each cell; default true. */
    public Builder captions(boolean captions) {
      this.captions = captions;
      return this;
    }

    /** The image array's name; default the batch's first data array of an image's shape. */
    public Builder data(String name) {
      this.data = name;
      return this;
    }

    /** The label array the captions show; default the batch's first label array (none: no label). */
    public Builder label(String name) {
      this.label = name;
      return this;
    }

    /**
     * Whether a rank-4 image array is (batch, h, w, c); default: (batch, c, h, w) when axis 1 holds
     * 1, 3 or 4 channels, else (batch, h, w, c) when axis 3 does.
     */
    public Builder channelsLast(boolean channelsLast) {
      this.channelsLast = channelsLast;
      return this;
    }

    /** Class names for the captions: a label value k is shown as {@code names.get(k)}. */
    public Builder classNames(List<String> names) {
      this.classes = List.copyOf(names);
      return this;
    }

    /**
     * How float values were normalised, {@code (pixel - mean[c]) * scale / std[c]}: one value for
     * every channel or one per channel. Default mean 0, std 1, scale 1.
     */
    public Builder normalization(float[] mean, float[] std, float scale) {
      if (mean.length == 0 || std.length == 0 || mean.length > 4 || std.length > 4) {
        throw new IllegalArgumentException("ImageGrid: give 1 to 4 means and stds (one for every channel or one "
            + "per channel), got " + mean.length + " and " + std.length);
      }
      for (float d : std) {
        if (d == 0 || !Float.isFinite(d)) {
          throw new IllegalArgumentException("ImageGrid: every std must be finite and non-zero, got "
              + Arrays.toString(std));
        }
      }
      if (scale == 0 || !Float.isFinite(scale)) {
        throw new IllegalArgumentException("ImageGrid: scale must be finite and non-zero, got " + scale);
      }
      this.mean = mean.clone();
      this.std = std.clone();
      this.scale = scale;
      this.meanImage = null;
      return this;
    }

    /**
     * Reads the images as {@code provider} writes them: its data and label names, its layout, its
     * normalisation (mean, std, scale, or mean image) and, for an image folder, its class names.
     * MXNet subtracts a mean image before mirroring, so a mirrored sample's mean image is undone at
     * the mirrored place: such tiles are close, not exact. The random contrast, illumination and PCA
     * noise are not undone: they show as what they did to the pixels.
     */
    public Builder from(ImageRecordProvider provider) {
      DataDesc d = provider.provideData().get(0);
      this.data = d.name();
      this.label = provider.provideLabel().get(0).name();
      this.channelsLast = "NHWC".equals(d.layout());
      this.classes = provider.classes();
      Augmentation.Normalization n = provider.normalization();
      this.mean = n.mean().clone();
      this.std = n.std().clone();
      this.scale = n.scale();
      this.meanImage = provider.meanImage();
      return this;
    }

    /** The grid. */
    public ImageGrid build() {
      return new ImageGrid(this);
    }
  }
}
