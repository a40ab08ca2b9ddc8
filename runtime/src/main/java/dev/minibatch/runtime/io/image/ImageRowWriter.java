package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.spi.Slot;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.runtime.io.FileFormatException;
import java.nio.FloatBuffer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.jspecify.annotations.Nullable;

/**
 * The image providers' rows: on each reader thread, read an image's bytes and labels from the
 * source, decode, augment and write them through the {@link ImageDecoder} (the one decode step,
 * which a shard set's image column uses too), and the labels beside them. Each sample's random
 * draws come from (seed, epoch, sample index), so a seeded epoch gives the same batches for any
 * number of reader threads.
 *
 * <p>A problem with an image ({@link ImageDecoder.BadImageException}) becomes a {@link
 * FileFormatException} naming the source's file and record ({@link ImageSource#error}).
 */
final class ImageRowWriter implements RowWriter {
  private final ImageSource source;
  private final ImageDecoder decoder;
  private final ThreadLocal<Worker> workers = ThreadLocal.withInitial(Worker::new);

  ImageRowWriter(ImageSource source, Augmentation a, boolean channelsLast, boolean uint8, float @Nullable [] meanImage,
      boolean reducedDecode) {
    this.source = source;
    this.decoder = new ImageDecoder(a, channelsLast, uint8, meanImage, reducedDecode, source.size());
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
      w.read(sample);
      try {
        w.image.write(w.encoded.buffer, w.encoded.offset, w.encoded.length, sample, s, slot.epoch(), target.bytes(0), r);
      } catch (ImageDecoder.BadImageException e) {
        throw source.error(sample, w.encoded, e.getMessage(), e.getCause());
      }
      labels.put(r * width, w.encoded.labels, 0, width);
    }
  }

  /** This thread's worker (the mean image's pass reads images through it). */
  Worker worker() {
    return workers.get();
  }

  /** One reader thread's state: the encoded bytes read from the source, and the decoder's worker. */
  final class Worker {
    final ImageSource.Encoded encoded = new ImageSource.Encoded(source.labelWidth());
    final ImageDecoder.Worker image = decoder.worker();

    /** Reads sample {@code i}'s bytes and labels into {@link #encoded}; an image of no bytes is the record's error. */
    void read(int i) {
      source.read(i, encoded);
      if (encoded.length <= 0) {
        throw source.error(i, encoded, "the record holds no image bytes after its header and labels", null);
      }
    }

    /**
     * Reads and decodes sample {@code i} at full size: an 8-bit image with the output's channel
     * count, owned by the caller (close it).
     */
    Mat decode(int i) {
      read(i);
      try {
        return image.decode(encoded.buffer, encoded.offset, encoded.length, i, false, 0, 0);
      } catch (ImageDecoder.BadImageException e) {
        throw source.error(i, encoded, e.getMessage(), e.getCause());
      }
    }
  }

  /** The exception for a sample; used by the provider's mean-image pass. */
  FileFormatException error(int i, String message, Throwable cause) {
    return source.error(i, workers.get().encoded, message, cause);
  }
}
