package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_8U;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_GRAYSCALE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_8;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_8;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_UNCHANGED;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGR2BGRA;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_GRAY2BGRA;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;

import dev.minibatch.DType;
import dev.minibatch.runtime.check.Check;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.function.LongBinaryOperator;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.jspecify.annotations.Nullable;

/**
 * The image providers' one decode step: an image's encoded bytes checked ({@link JpegCheck}, once per
 * sample; at every decode for {@link #UNCOUNTED} samples), decoded by OpenCV (a JPEG at 1/2, 1/4 or 1/8 of its size where the augmentation allows it),
 * augmented and normalised as {@link ImageRecordProvider} does, and written as one row of a batch
 * array. {@link ImageRecordProvider} decodes through it; so can any other source of encoded images
 * (a shard set's image column, a generated sample's encoded-image member): the same settings ({@link Builder#augment}, {@link
 * Builder#normalize}) and the same (seed, epoch, sample) give the same pixels.
 *
 * <p>Each sample's random draws come from (seed, epoch, sample) alone, so batches are the same for
 * any number of threads calling {@link #write} at once. Each thread keeps its own buffers (the
 * encoded bytes' native copy, the augmenter's images, the pixel scratch) from image to image.
 */
public final class ImageDecoder {
  private static final LongBinaryOperator OR = (x, y) -> x | y;

  /** {@link Builder#samples(int)} of a stream: any sample index, each image checked at every decode. */
  public static final int UNCOUNTED = Integer.MAX_VALUE;

  private final Augmentation a;
  private final boolean channelsLast;
  private final boolean uint8;
  private final float @Nullable [] meanImage;
  /** Whether images are decoded reduced where the augmentation allows it. */
  private final boolean reduce;
  private final int samples;
  private final ThreadLocal<Worker> workers = ThreadLocal.withInitial(Worker::new);
  /** One bit per sample: its bytes passed {@link JpegCheck} and decoded (threads set bits at once). */
  private final AtomicLongArray checked;

  ImageDecoder(Augmentation a, boolean channelsLast, boolean uint8, float @Nullable [] meanImage, boolean reducedDecode,
      int samples) {
    this.a = a;
    this.channelsLast = channelsLast;
    this.uint8 = uint8;
    this.meanImage = meanImage;
    this.reduce = reducedDecode && Augmenter.reducible(a);
    this.samples = samples;
    // A stream's count is not known: no memo, every decode checks its image.
    this.checked = new AtomicLongArray(samples == UNCOUNTED ? 0 : (samples + 63) >>> 6);
  }

  /** A builder: {@link Builder#dataShape} and {@link Builder#samples} are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Decodes {@code length} encoded bytes of {@code bytes} from {@code offset}, sample {@code sample}'s
   * image, augments it with the draws of ({@code seed}, {@code epoch}, {@code sample}) and writes it
   * as row {@code row} of the batch array whose bytes (native order) are {@code batch}: float32 or
   * uint8, (c, h, w) or (h, w, c) per row, as built.
   *
   * @throws BadImageException if the bytes are not an image OpenCV decodes to 8-bit pixels, a JPEG
   *     fails its check, or the image does not fit the augmentation (too small for a crop); the
   *     message says what, the caller names where the bytes came from
   * @throws IndexOutOfBoundsException if {@code sample} is not below {@link Builder#samples}
   */
  public void write(byte[] bytes, int offset, int length, long seed, int epoch, int sample, ByteBuffer batch, int row) {
    java.util.Objects.checkIndex(sample, samples);
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
    Worker w = workers.get();
    ByteBuffer copy = w.copy;
    if (copy.capacity() < length) {
      copy = ByteBuffer.allocateDirect(Math.max(length, 2 * copy.capacity()));
      w.copy = copy;
    }
    copy.clear();
    copy.put(bytes, offset, length).flip();
    w.write(copy, 0, length, sample, seed, epoch, batch, row);
  }

  /** This thread's worker. */
  Worker worker() {
    return workers.get();
  }

  /**
   * An image that cannot be decoded or augmented: its message says why (a corrupt JPEG with where
   * in the image and the libjpeg warning it matches, bytes OpenCV does not read, 16-bit samples, an
   * image too small for the crop); the caller names the file and sample it came from.
   */
  public static final class BadImageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadImageException(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  /** One thread's state. */
  final class Worker {
    final Augmenter augmenter = new Augmenter(a);
    final PixelWriter pixels = new PixelWriter(a, channelsLast, meanImage, uint8);
    final SeededRandom random = new SeededRandom();
    private final JpegCheck jpeg = new JpegCheck();
    private final Mat rgba = new Mat();
    private @Nullable ByteBuffer wrapped;
    private @Nullable BytePointer pointer;
    /** The native copy of bytes handed in a Java array. */
    private ByteBuffer copy = ByteBuffer.allocateDirect(1 << 16);

    /**
     * Decodes, augments and writes sample {@code sample}'s image ({@code length} bytes of the direct
     * buffer {@code b} from {@code offset}) as row {@code row} of {@code dst}, the draws those of
     * ({@code seed}, {@code epoch}, {@code sample}).
     */
    void write(ByteBuffer b, int offset, int length, int sample, long seed, long epoch, ByteBuffer dst, int row) {
      random.reset(seed, epoch, sample);
      // The augmenter's result may be the decoded image itself: close it only after the pixels are written.
      try (Mat image = decode(b, offset, length, sample, reduce, seed, epoch)) {
        try {
          augmenter.apply(image, random);
        } catch (RuntimeException e) {
          throw new BadImageException(e.getMessage(), e);
        }
        pixels.write(augmenter.result(), augmenter.x(), augmenter.y(), random, dst, row);
      }
    }

    /**
     * Decodes sample {@code i}'s image, {@code length} bytes of the direct buffer {@code b} from
     * {@code offset}: an 8-bit image with the output's channel count, owned by the caller (close
     * it). With {@code reduced}, a JPEG is decoded at the reduction the augmenter plans ({@link
     * Augmenter#plan}), its draws taken from {@link #random}, which the caller has reset for ({@code
     * seed}, {@code epoch}, {@code i}).
     *
     * @throws BadImageException for bytes that are not a decodable 8-bit image
     */
    Mat decode(ByteBuffer b, int offset, int length, int i, boolean reduced, long seed, long epoch) {
      BytePointer p = pointer;
      if (b != wrapped || p == null) {
        p = new BytePointer(b);
        pointer = p;
        wrapped = b;
      }
      long bit = 1L << i;
      boolean memo = samples != UNCOUNTED;
      boolean check = !memo || (checked.get(i >>> 6) & bit) == 0;
      if (check) {
        String corrupt = jpeg.check(b, offset, length);
        if (corrupt != null) {
          throw new BadImageException(corrupt, null);
        }
      }
      // A plan left by an image that failed after planning must not reach this one.
      augmenter.unplan();
      int rows = 0;
      int cols = 0;
      int d = 1;
      boolean planned = reduced && JpegCheck.isJpeg(b, offset, length)
          && (check ? jpeg.hasFrame() : jpeg.frameSize(b, offset, length));
      if (planned) {
        rows = jpeg.frameHeight();
        cols = jpeg.frameWidth();
        try {
          d = augmenter.plan(rows, cols, random);
        } catch (RuntimeException e) {
          throw new BadImageException(e.getMessage(), e);
        }
      }
      Mat decoded = OpenCv.decode(p, offset, length, flags(d));
      if (planned && !decoded.empty() && (decoded.rows() != ceilDiv(rows, d) || decoded.cols() != ceilDiv(cols, d))) {
        // OpenCV turned the image by its EXIF orientation, so the header's size is not the decoded
        // one and the plan is wrong: replay the same draws on the full-size image.
        augmenter.unplan();
        random.reset(seed, epoch, i);
        if (d > 1) {
          decoded.close();
          decoded = OpenCv.decode(p, offset, length, flags(1));
        }
      }
      if (decoded.empty()) {
        decoded.close();
        throw new BadImageException("OpenCV cannot decode the " + length + " image bytes (they start with "
            + head(b, offset, length) + "); expected a JPEG, PNG or another format OpenCV reads", null);
      }
      if (decoded.depth() != CV_8U) {
        decoded.close();
        throw new BadImageException("the image has " + depthName(decoded.depth()) + " samples; minibatch reads "
            + "8-bit images", null);
      }
      if (check && memo) {
        checked.getAndAccumulate(i >>> 6, bit, OR);
      }
      if (a.channels() == 4 && decoded.channels() != 4) {
        cvtColor(decoded, rgba, decoded.channels() == 1 ? COLOR_GRAY2BGRA : COLOR_BGR2BGRA);
        decoded.close();
        return new Mat(rgba);
      }
      return decoded;
    }
  }

  /** The imdecode flags for the output's channels, reduced by {@code d} (1, 2, 4 or 8; 4 channels only at 1). */
  private int flags(int d) {
    if (a.channels() == 4) {
      return IMREAD_UNCHANGED;
    }
    boolean gray = a.channels() == 1;
    return switch (d) {
      case 2 -> gray ? IMREAD_REDUCED_GRAYSCALE_2 : IMREAD_REDUCED_COLOR_2;
      case 4 -> gray ? IMREAD_REDUCED_GRAYSCALE_4 : IMREAD_REDUCED_COLOR_4;
      case 8 -> gray ? IMREAD_REDUCED_GRAYSCALE_8 : IMREAD_REDUCED_COLOR_8;
      default -> gray ? IMREAD_GRAYSCALE : IMREAD_COLOR;
    };
  }

  private static int ceilDiv(int v, int d) {
    return (v + d - 1) / d;
  }

  private static String head(ByteBuffer b, int offset, int length) {
    StringBuilder s = new StringBuilder("0x");
    for (int k = 0; k < Math.min(4, length); k++) {
      s.append(String.format("%02X", b.get(offset + k)));
    }
    return s.toString();
  }

  private static String depthName(int depth) {
    return switch (depth) {
      case 1 -> "signed 8-bit";
      case 2 -> "16-bit";
      case 3 -> "signed 16-bit";
      case 4 -> "32-bit integer";
      case 5 -> "32-bit float";
      case 6 -> "64-bit float";
      default -> "depth-" + depth;
    };
  }

  /**
   * Builds an {@link ImageDecoder}: the output's shape, layout and element type, the samples it
   * decodes, and {@link ImageRecordProvider}'s augmentation and normalisation groups with their
   * defaults and checks.
   */
  public static final class Builder {
    private int channels;
    private int height;
    private int width;
    private boolean channelsLast;
    private DType dtype = DType.FLOAT32;
    private boolean reducedDecode = true;
    private int samples = -1;
    private final ImageRecordProvider.Augment augment = new ImageRecordProvider.Augment();
    private final ImageRecordProvider.Normalize normalize = new ImageRecordProvider.Normalize();

    private Builder() {}

    /** The output image shape: channels 1 (gray), 3 (RGB) or 4 (RGBA), height and width. Required. */
    public Builder dataShape(int channels, int height, int width) {
      this.channels = channels;
      this.height = height;
      this.width = width;
      return this;
    }

    /** Rows of (h, w, c) instead of (c, h, w); default false. */
    public Builder channelsLast(boolean channelsLast) {
      this.channelsLast = channelsLast;
      return this;
    }

    /** FLOAT32 (normalised, the default) or UINT8 (raw pixels, cropped and mirrored, as {@link ImageRecordProvider}). */
    public Builder dtype(DType dtype) {
      this.dtype = ImageOutput.requireImageType(dtype);
      return this;
    }

    /** As {@link ImageRecordProvider.Builder#reducedDecode(boolean)}; default true. */
    public Builder reducedDecode(boolean reduced) {
      this.reducedDecode = reduced;
      return this;
    }

    /**
     * How many samples there are: {@link ImageDecoder#write}'s {@code sample} is below it (each is
     * checked once); {@link ImageDecoder#UNCOUNTED} for a stream whose count is not known, where
     * every decode checks its image.
     */
    public Builder samples(int samples) {
      this.samples = Check.atLeast("samples", samples, 0);
      return this;
    }

    /** Sets {@link ImageRecordProvider.Augment} options; calls add up, the last value wins. */
    public Builder augment(Consumer<ImageRecordProvider.Augment> options) {
      options.accept(augment);
      return this;
    }

    /**
     * Sets {@link ImageRecordProvider.Normalize} options; calls add up, the last value wins. A
     * {@code meanImg} must exist (there is no pass over the images here to compute it).
     */
    public Builder normalize(Consumer<ImageRecordProvider.Normalize> options) {
      options.accept(normalize);
      return this;
    }

    /**
     * Checks the settings and builds the decoder.
     *
     * @throws IllegalStateException without {@code dataShape} or {@code samples}, or without OpenCV's natives
     * @throws IllegalArgumentException for settings out of range or contradicting each other, or a
     *     {@code meanImg} that does not exist
     * @throws dev.minibatch.runtime.io.FileFormatException for a {@code meanImg} that is not a mean
     *     image of the output's shape
     */
    public ImageDecoder build() {
      if (samples < 0) {
        throw new IllegalStateException("ImageDecoder: set samples(n), the number of samples it decodes");
      }
      ImageOutput out = ImageOutput.of("ImageDecoder", channels, height, width, channelsLast, dtype);
      Augmentation a = ImageRecordProvider.augmentation(out, augment, normalize);
      Path meanImg = a.normalization().meanImg();
      float[] mean = null;
      if (meanImg != null) {
        if (!Files.exists(meanImg)) {
          throw new IllegalArgumentException("ImageDecoder: the mean image " + meanImg + " does not exist; compute it"
              + " with ImageRecordProvider (normalize(n -> n.meanImg(path)) over the images), then give it here");
        }
        mean = MeanImage.load(meanImg, a);
      }
      OpenCv.require();
      return new ImageDecoder(a, out.channelsLast(), out.uint8(), mean, reducedDecode, samples);
    }
  }
}
