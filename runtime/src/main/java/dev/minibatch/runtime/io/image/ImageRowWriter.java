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

import dev.minibatch.runtime.spi.Slot;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.runtime.internal.pipeline.SeededRandom;
import dev.minibatch.runtime.io.FileFormatException;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongBinaryOperator;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.jspecify.annotations.Nullable;

/**
 * The image providers' rows: on each reader thread, read an image's bytes and labels from the
 * source, decode them with OpenCV, augment, and write pixels and labels straight into the batch's
 * rows. Each sample's random draws come from (seed, epoch, sample index), so a seeded epoch gives
 * the same batches for any number of reader threads.
 *
 * <p>Each thread keeps its buffers (encoded bytes, the augmenter's images, the pixel scratch) from
 * image to image; only OpenCV's decoder allocates the decoded image, which is freed as soon as it
 * has been used.
 *
 * <p>A JPEG is checked ({@link JpegCheck}) before OpenCV decodes it, because OpenCV decodes a
 * corrupt one without an error; the check runs once per image, the first time it is read, and later
 * epochs skip it.
 *
 * <p>With reduced decoding on and settings that allow it ({@link Augmenter#reducible}), a JPEG's
 * size is read from its frame header (the check's walk, stopped at the frame, in later epochs), the
 * augmenter plans the crop from it and chooses a reduction, and OpenCV decodes at 1/2, 1/4 or 1/8
 * ({@code IMREAD_REDUCED_*}). Other formats decode at full size.
 */
final class ImageRowWriter implements RowWriter {
  private final ImageSource source;
  private final Augmentation a;
  private final boolean channelsLast;
  private final boolean uint8;
  private final float @Nullable [] meanImage;
  /** Whether images are decoded reduced where the augmentation allows it. */
  private final boolean reduce;
  private final ThreadLocal<Worker> workers = ThreadLocal.withInitial(Worker::new);
  /** One bit per image: its bytes passed {@link JpegCheck} and decoded (reader threads set bits at once). */
  private final AtomicLongArray checked;
  private static final LongBinaryOperator OR = (x, y) -> x | y;

  ImageRowWriter(ImageSource source, Augmentation a, boolean channelsLast, boolean uint8, float @Nullable [] meanImage,
      boolean reducedDecode) {
    this.source = source;
    this.reduce = reducedDecode && Augmenter.reducible(a);
    this.a = a;
    this.channelsLast = channelsLast;
    this.uint8 = uint8;
    this.meanImage = meanImage;
    this.checked = new AtomicLongArray((source.size() + 63) >>> 6);
  }

  @Override
  public void write(int[] indices, int from, int to, Slot slot) {
    Worker w = workers.get();
    CollateTarget target = CollateTarget.of(slot);
    FloatBuffer labels = target.floats(1);
    int width = source.labelWidth();
    long s = slot.seed();
    for (int r = from; r < to; r++) {
      int sample = indices[r];
      w.random.reset(s, slot.epoch(), sample);
      // The augmenter's result may be the decoded image itself: close it only after the pixels are written.
      try (Mat image = w.decode(sample, reduce, s, slot.epoch())) {
        try {
          w.augmenter.apply(image, w.random);
        } catch (RuntimeException e) {
          throw source.error(sample, w.encoded, e.getMessage(), e);
        }
        Augmenter out = w.augmenter;
        w.pixels.write(out.result(), out.x(), out.y(), w.random, target.bytes(0), r);
      }
      labels.put(r * width, w.encoded.labels, 0, width);
    }
  }

  /** This thread's worker (the mean image's pass reads images through it). */
  Worker worker() {
    return workers.get();
  }

  /** One reader thread's state. */
  final class Worker {
    final ImageSource.Encoded encoded = new ImageSource.Encoded(source.labelWidth());
    final Augmenter augmenter = new Augmenter(a);
    final PixelWriter pixels = new PixelWriter(a, channelsLast, meanImage, uint8);
    final SeededRandom random = new SeededRandom();
    private final JpegCheck jpeg = new JpegCheck();
    private final Mat rgba = new Mat();
    private @Nullable ByteBuffer wrapped;
    private @Nullable BytePointer pointer;

    /**
     * Reads and decodes sample {@code i} at full size: an 8-bit image with the output's channel
     * count, owned by the caller (close it).
     */
    Mat decode(int i) {
      return decode(i, false, 0, 0);
    }

    /**
     * Reads and decodes sample {@code i}, as {@link #decode(int)}; with {@code reduced}, a JPEG is
     * decoded at the reduction the augmenter plans ({@link Augmenter#plan}), its draws taken from
     * {@link #random}, which the caller has reset for ({@code seed}, {@code epoch}, {@code i}).
     */
    Mat decode(int i, boolean reduced, long seed, long epoch) {
      source.read(i, encoded);
      ByteBuffer b = encoded.buffer;
      BytePointer p = pointer;
      if (b != wrapped || p == null) {
        p = new BytePointer(b);
        pointer = p;
        wrapped = b;
      }
      if (encoded.length <= 0) {
        throw source.error(i, encoded, "the record holds no image bytes after its header and labels", null);
      }
      long bit = 1L << i;
      boolean check = (checked.get(i >>> 6) & bit) == 0;
      if (check) {
        String corrupt = jpeg.check(b, encoded.offset, encoded.length);
        if (corrupt != null) {
          throw source.error(i, encoded, corrupt, null);
        }
      }
      // A plan left by an image that failed after planning must not reach this one.
      augmenter.unplan();
      int rows = 0;
      int cols = 0;
      int d = 1;
      boolean planned = reduced && JpegCheck.isJpeg(b, encoded.offset, encoded.length)
          && (check ? jpeg.hasFrame() : jpeg.frameSize(b, encoded.offset, encoded.length));
      if (planned) {
        rows = jpeg.frameHeight();
        cols = jpeg.frameWidth();
        try {
          d = augmenter.plan(rows, cols, random);
        } catch (RuntimeException e) {
          throw source.error(i, encoded, e.getMessage(), e);
        }
      }
      Mat decoded = OpenCv.decode(p, encoded.offset, encoded.length, flags(d));
      if (planned && !decoded.empty() && (decoded.rows() != ceilDiv(rows, d) || decoded.cols() != ceilDiv(cols, d))) {
        // OpenCV turned the image by its EXIF orientation, so the header's size is not the decoded
        // one and the plan is wrong: replay the same draws on the full-size image.
        augmenter.unplan();
        random.reset(seed, epoch, i);
        if (d > 1) {
          decoded.close();
          decoded = OpenCv.decode(p, encoded.offset, encoded.length, flags(1));
        }
      }
      if (decoded.empty()) {
        decoded.close();
        throw source.error(i, encoded, "OpenCV cannot decode the " + encoded.length + " image bytes (they start with "
            + head(b, encoded.offset, encoded.length) + "); expected a JPEG, PNG or another format OpenCV reads", null);
      }
      if (decoded.depth() != CV_8U) {
        decoded.close();
        throw source.error(i, encoded, "the image has " + depthName(decoded.depth()) + " samples; minibatch reads "
            + "8-bit images", null);
      }
      if (check) {
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

  /** The exception for a sample; used by the provider's mean-image pass. */
  FileFormatException error(int i, String message, Throwable cause) {
    return source.error(i, workers.get().encoded, message, cause);
  }
}
