package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.bytedeco.javacpp.indexer.UByteIndexer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.nd4j.linalg.api.buffer.DataType;

/**
 * Runs the augmenter or a whole provider on synthetic images and hands back plain arrays, so the
 * augmentation tests can compare them with values worked out by hand.
 */
final class AugmentedImages {
  private AugmentedImages() {}

  /** The settings {@link ImageRecordProvider.Builder} would build from these options and output shape. */
  static Augmentation settings(int channels, int height, int width, Consumer<ImageRecordProvider.Augment> augment) {
    ImageRecordProvider.Augment a = new ImageRecordProvider.Augment();
    augment.accept(a);
    return new Augmentation(channels, height, width, a.settings(channels), new ImageRecordProvider.Normalize()
        .settings());
  }

  /** A pixel array {@code [row][column][channel]}, OpenCV's channel order (BGR). */
  static int[][][] pixels(Mat m) {
    int[][][] p = new int[m.rows()][m.cols()][m.channels()];
    try (UByteIndexer ix = m.createIndexer()) {
      for (int y = 0; y < m.rows(); y++) {
        for (int x = 0; x < m.cols(); x++) {
          for (int c = 0; c < m.channels(); c++) {
            p[y][x][c] = ix.get(y, x, c);
          }
        }
      }
    }
    return p;
  }

  /** The augmenter's output for one image and sample index. */
  record Output(int[][][] image, int x, int y) {
    int rows() {
      return image.length;
    }

    int cols() {
      return image[0].length;
    }

    /** The {@code height x width} window the pixel writer would read. */
    int[][][] window(int height, int width) {
      int[][][] w = new int[height][width][];
      for (int i = 0; i < height; i++) {
        for (int j = 0; j < width; j++) {
          w[i][j] = image[y + i][x + j];
        }
      }
      return w;
    }
  }

  /**
   * Augments {@code src} as the reader thread would for sample {@code index} of epoch 0 under
   * {@code seed}: the whole result image (after resize, affine, pad, crop or colour) and where the
   * output window starts in it.
   */
  static Output augment(Augmentation a, TestImages.Pixels src, int rows, int cols, int channels, long seed,
      int index) {
    try (Mat m = TestImages.mat(rows, cols, channels, src); Augmenter aug = new Augmenter(a)) {
      aug.apply(m, new SeededRandom().reset(seed, 0, index));
      return new Output(pixels(aug.result()), aug.x(), aug.y());
    }
  }

  /** A record file of {@code copies} copies of one PNG image, labelled 0, 1, 2, … */
  static Path copies(Path rec, int copies, int rows, int cols, int channels, TestImages.Pixels p) {
    byte[] png = TestImages.png(rows, cols, channels, p);
    List<ImageRecord> records = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      records.add(ImageRecord.of(i, i, png));
    }
    return TestImages.write(rec, records);
  }

  /** One epoch of the provider's data rows, flat, in the provider's order (the rows' labels are their indices). */
  static List<float[]> rows(ImageRecordProvider p) {
    List<float[]> rows = new ArrayList<>();
    for (NamedBatch b : p) {
      for (int r = 0; r < b.countSamples(); r++) {
        rows.add(b.data().get(0).slice(r).dup().castTo(DataType.FLOAT).data().asFloat());
      }
    }
    return rows;
  }
}
