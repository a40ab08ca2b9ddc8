package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_8U;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_GRAYSCALE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_UNCHANGED;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGR2BGRA;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_GRAY2BGRA;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;

import dev.minibatch.runtime.internal.engine.BatchSlot;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.internal.engine.RowWriter;
import dev.minibatch.runtime.internal.pipeline.SeededRandom;
import dev.minibatch.runtime.io.FileFormatException;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongBinaryOperator;
import java.util.function.LongSupplier;
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
 */
final class ImageRowWriter implements RowWriter {
  private final ImageSource source;
  private final Augmentation a;
  private final boolean channelsLast;
  private final boolean uint8;
  private final float @Nullable [] meanImage;
  private final LongSupplier seed;
  private final ThreadLocal<Worker> workers = ThreadLocal.withInitial(Worker::new);
  /** One bit per image: its bytes passed {@link JpegCheck} and decoded (reader threads set bits at once). */
  private final AtomicLongArray checked;
  private static final LongBinaryOperator OR = (x, y) -> x | y;

  ImageRowWriter(ImageSource source, Augmentation a, boolean channelsLast, boolean uint8, float @Nullable [] meanImage,
      LongSupplier seed) {
    this.source = source;
    this.a = a;
    this.channelsLast = channelsLast;
    this.uint8 = uint8;
    this.meanImage = meanImage;
    this.seed = seed;
    this.checked = new AtomicLongArray((source.size() + 63) >>> 6);
  }

  @Override
  public void write(int[] indices, int from, int to, BatchSlot<?> slot) {
    Worker w = workers.get();
    CollateTarget target = CollateTarget.of(slot);
    FloatBuffer labels = target.floats(1);
    int width = source.labelWidth();
    long s = seed.getAsLong();
    for (int r = from; r < to; r++) {
      int sample = indices[r];
      w.random.reset(s, slot.epoch(), sample);
      // The augmenter's result may be the decoded image itself: close it only after the pixels are written.
      try (Mat image = w.decode(sample)) {
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
     * Reads and decodes sample {@code i}: an 8-bit image with the output's channel count, owned by
     * the caller (close it).
     */
    Mat decode(int i) {
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
      int flags = a.channels() == 1 ? IMREAD_GRAYSCALE : a.channels() == 3 ? IMREAD_COLOR : IMREAD_UNCHANGED;
      Mat decoded = OpenCv.decode(p, encoded.offset, encoded.length, flags);
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
