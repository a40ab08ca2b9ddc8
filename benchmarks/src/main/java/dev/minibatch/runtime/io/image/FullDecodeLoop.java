package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_32F;
import static org.bytedeco.opencv.global.opencv_core.CV_32FC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.flip;
import static org.bytedeco.opencv.global.opencv_core.split;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_LINEAR;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.MatVector;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * The limit of a loader that decodes at full size, shared by the image pair runs: on {@code
 * threads} threads (the caller and a pool, each a contiguous share of the images), OpenCV {@code
 * imdecode} of each JPEG from native memory at full size, the crop box (the runtime's own {@link
 * ResizedCropBox} and seeded draws, or a random window of the output's size), bilinear resize to the
 * output, an optional seeded horizontal flip, then the planes written by {@code split} + {@code
 * convertTo} with ImageNet's mean/std into a ring of five float32 batch buffers per thread. No record
 * reading, shuffling or engine.
 */
final class FullDecodeLoop implements AutoCloseable {
  private static final float[] MEAN = {123.68f, 116.28f, 103.53f};
  private static final float[] STD = {58.395f, 57.12f, 57.375f};

  private final List<BytePointer> jpegs = new ArrayList<>();
  private final List<Mat> wrapped = new ArrayList<>();
  private final int out;
  private final boolean resizedCrop;
  private final boolean mirror;
  private final int threads;
  private final long seed;
  private final int batch;
  private final ExecutorService pool;
  private final List<BytePointer> rings = new ArrayList<>();
  private final Augmentation.ResizedCrop box = new Augmentation.ResizedCrop(true, 0.08f, 1, 3f / 4, 4f / 3);

  FullDecodeLoop(List<byte[]> encoded, int out, boolean resizedCrop, boolean mirror, int threads, long seed,
      int batch) {
    for (byte[] b : encoded) {
      BytePointer p = new BytePointer(b.length);
      p.put(b);
      jpegs.add(p);
      wrapped.add(new Mat(1, b.length, CV_8UC1, p));
    }
    this.out = out;
    this.resizedCrop = resizedCrop;
    this.mirror = mirror;
    this.threads = threads;
    this.seed = seed;
    this.batch = batch;
    this.pool = Executors.newFixedThreadPool(Math.max(1, threads - 1));
    for (int t = 0; t < threads; t++) {
      rings.add(new BytePointer(5L * batch * 3 * out * out * Float.BYTES));
    }
  }

  /** One epoch over every image. */
  void epoch() throws Exception {
    int n = threads;
    int images = wrapped.size();
    List<Future<Long>> others = new ArrayList<>();
    for (int t = 1; t < n; t++) {
      int from = images * t / n;
      int to = images * (t + 1) / n;
      BytePointer ring = rings.get(t);
      others.add(pool.submit(() -> run(from, to, ring)));
    }
    long sum = run(0, images / n, rings.get(0));
    for (Future<Long> f : others) {
      sum += f.get();
    }
    if (sum <= 0) {
      throw new IllegalStateException("nothing decoded");
    }
  }

  /** Images [from, to): full decode, crop, resize, flip, float planes into the ring. */
  private long run(int from, int to, BytePointer ring) {
    long sum = 0;
    long image = 3L * out * out * Float.BYTES;
    long plane = (long) out * out * Float.BYTES;
    SeededRandom r = new SeededRandom();
    ResizedCropBox b = new ResizedCropBox();
    try (Rect rect = new Rect(); Size size = new Size(out, out); Mat resized = new Mat();
        MatVector planes = new MatVector()) {
      for (int k = from; k < to; k++) {
        r.reset(seed, 0, k);
        try (Mat m = imdecode(wrapped.get(k), IMREAD_COLOR)) {
          if (resizedCrop) {
            b.draw(m.rows(), m.cols(), box, r);
            try (Mat roi = m.apply(rect.x(b.x()).y(b.y()).width(b.width()).height(b.height()))) {
              resize(roi, resized, size, 0, 0, INTER_LINEAR);
            }
            if (mirror && r.nextBoolean()) {
              flip(resized, resized, 1);
            }
            split(resized, planes);
          } else {
            rect.y(r.nextInt(0, m.rows() - out)).x(r.nextInt(0, m.cols() - out)).width(out).height(out);
            try (Mat roi = m.apply(rect)) {
              split(roi, planes);
            }
          }
          long base = (k % (5 * batch)) * image;
          for (int c = 0; c < 3; c++) {
            try (Mat src = planes.get(2 - c);
                Mat dst = new Mat(out, out, CV_32FC1, ring.position(base + c * plane))) {
              src.convertTo(dst, CV_32F, 1 / STD[c], -MEAN[c] / STD[c]);
            }
          }
          sum += m.cols();
        }
      }
    }
    return sum;
  }

  @Override
  public void close() {
    pool.shutdownNow();
    wrapped.forEach(Mat::close);
    jpegs.forEach(BytePointer::close);
    rings.forEach(BytePointer::close);
  }
}
