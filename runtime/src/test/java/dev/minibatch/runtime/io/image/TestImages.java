package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;

import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.indexer.UByteIndexer;
import org.bytedeco.opencv.opencv_core.Mat;

/** Images made in the tests: pixels from a formula, encoded losslessly as PNG by OpenCV. */
final class TestImages {
  private TestImages() {}

  /** A pixel value: image {@code id}, row {@code y}, column {@code x}, OpenCV channel {@code c} (BGR order). */
  @FunctionalInterface
  interface Pixels {
    int value(int y, int x, int c);
  }

  static Mat mat(int height, int width, int channels, Pixels p) {
    OpenCv.require();
    Mat m = new Mat(height, width, CV_8UC(channels));
    try (UByteIndexer ix = m.createIndexer()) {
      for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
          for (int c = 0; c < channels; c++) {
            ix.put(y, x, c, p.value(y, x, c) & 0xff);
          }
        }
      }
    }
    return m;
  }

  /** The image encoded as PNG (lossless) or JPEG ({@code ext} ".png" or ".jpg"). */
  static byte[] encode(Mat m, String ext) {
    try (BytePointer out = new BytePointer()) {
      if (!imencode(ext, m, out)) {
        throw new IllegalStateException("OpenCV could not encode " + ext);
      }
      byte[] b = new byte[(int) out.limit()];
      out.get(b);
      return b;
    }
  }

  static byte[] png(int height, int width, int channels, Pixels p) {
    try (Mat m = mat(height, width, channels, p)) {
      return encode(m, ".png");
    }
  }

  /** Writes the records to {@code rec} (and an index beside it, {@code .idx}, keys = ids). */
  static Path write(Path rec, List<ImageRecord> records) {
    try (RecordIOWriter w = RecordIOWriter.create(rec, Path.of(rec.toString().replaceAll("\\.rec$", "") + ".idx"))) {
      for (ImageRecord r : records) {
        w.write(r.id(), r.encode());
      }
    }
    return rec;
  }
}
