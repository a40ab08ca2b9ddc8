package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_32F;
import static org.bytedeco.opencv.global.opencv_core.CV_32FC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.flip;
import static org.bytedeco.opencv.global.opencv_core.split;

import dev.minibatch.runtime.pipeline.SeededRandom;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.MatVector;
import org.bytedeco.opencv.opencv_core.Rect;
import org.jspecify.annotations.Nullable;

/**
 * MXNet's normaliser for one reader thread: writes the augmenter's output window into one row of a
 * batch — OpenCV's BGR(A) swapped to RGB(A), planes (CHW) or interleaved (HWC), mirrored when asked
 * or drawn — as float32 {@code (pixel + pca[c] - mean[c]) * contrast * scale / std[c] + illumination *
 * scale / std[c]} (mean from the mean image when there is one), or as the raw uint8 pixels.
 *
 * <p>The per-channel arithmetic of a float image is a 256-entry table per channel, built once per
 * image from its random contrast, illumination and PCA noise, so each value costs a lookup; the
 * window's pixels are copied out of native memory in one call, and the output is written plane by
 * plane into a reused array, then copied into the batch row in bulk. Not thread-safe.
 */
final class PixelWriter {
  /** ImageNet's RGB eigenvalues and eigenvectors (AlexNet's lighting noise), as MXNet's pca_noise uses. */
  private static final float[] EIGVAL = {55.46f, 4.794f, 1.148f};
  private static final float[][] EIGVEC = {
      {-0.5675f, 0.7192f, 0.4009f},
      {-0.5808f, -0.0045f, -0.8140f},
      {-0.5836f, -0.6948f, 0.4203f}};

  private final Augmentation a;
  private final boolean channelsLast;
  private final float @Nullable [] meanImage;
  private final int channels;
  private final int height;
  private final int width;
  /** The augmented image's window, copied from native memory in one call per image. */
  private byte[] window = new byte[0];
  private final float[] floats;
  private final byte[] bytes;
  private final float[][] table;
  private final float[] mul = new float[4];
  private final float[] add = new float[4];
  private final float[] pca = new float[4];
  private final Mat flipped = new Mat();
  private final MatVector planes = new MatVector();
  private final MatVector outPlanes = new MatVector();
  private final Rect rect = new Rect();
  private @Nullable ByteBuffer batchBuffer;
  private @Nullable BytePointer batchPointer;

  PixelWriter(Augmentation a, boolean channelsLast, float @Nullable [] meanImage, boolean uint8) {
    this.a = a;
    this.channelsLast = channelsLast;
    this.meanImage = meanImage;
    this.channels = a.channels();
    this.height = a.height();
    this.width = a.width();
    int n = channels * height * width;
    this.floats = uint8 ? new float[0] : new float[n];
    this.bytes = uint8 ? new byte[n] : new byte[0];
    this.table = new float[channels][256];
  }

  /** The number of values one image writes. */
  int length() {
    return channels * height * width;
  }

  /** Writes the window of {@code image} at ({@code x0}, {@code y0}) as float32 row {@code row} of {@code dst}. */
  void writeFloats(Mat image, int x0, int y0, SeededRandom r, FloatBuffer dst, int row) {
    boolean mirrored = mirrored(r);
    float contrast = (r.nextFloat() * a.maxRandomContrast() * 2 - a.maxRandomContrast() + 1) * a.scale();
    float illumination = (r.nextFloat() * a.maxRandomIllumination() * 2 - a.maxRandomIllumination()) * a.scale();
    pcaOffsets(r);
    float[] mean = a.mean();
    float[] std = a.std();
    float[] meanImg = meanImage;
    for (int c = 0; c < channels; c++) {
      mul[c] = contrast / std[c];
      add[c] = illumination / std[c];
      if (meanImg == null) {
        float[] t = table[c];
        for (int v = 0; v < 256; v++) {
          t[v] = (v + pca[c] - mean[c]) * mul[c] + add[c];
        }
      }
    }
    int step = window(image, x0, y0);
    float[] out = floats;
    if (meanImg == null) {
      tableFloats(out, step, mirrored);
    } else {
      meanFloats(out, step, mirrored, meanImg);
    }
    dst.put(row * out.length, out, 0, out.length);
  }

  /**
   * As {@link #writeFloats}, for planes without a mean image (the common case), with OpenCV's
   * vectorised kernels instead of a Java loop: the window is mirrored ({@code flip}) and split into
   * channels, and each channel is converted ({@code convertTo}, {@code v * a + b} in float) straight
   * into its plane of the batch row. Values equal {@link #writeFloats}'s up to float rounding of
   * the folded constants.
   */
  void writeFloatPlanes(Mat image, int x0, int y0, SeededRandom r, ByteBuffer dst, int row) {
    boolean mirrored = mirrored(r);
    float contrast = (r.nextFloat() * a.maxRandomContrast() * 2 - a.maxRandomContrast() + 1) * a.scale();
    float illumination = (r.nextFloat() * a.maxRandomIllumination() * 2 - a.maxRandomIllumination()) * a.scale();
    pcaOffsets(r);
    float[] mean = a.mean();
    float[] std = a.std();
    BytePointer base = batchPointer(dst);
    int hw = height * width;
    int[] swap = swap();
    boolean whole = x0 == 0 && y0 == 0 && image.cols() == width && image.rows() == height;
    try (Mat window = whole ? null : image.apply(rect.x(x0).y(y0).width(width).height(height))) {
      Mat src = whole ? image : window;
      if (mirrored) {
        flip(src, flipped, 1);
        src = flipped;
      }
      if (channels > 1) {
        split(src, planes);
      }
      for (int k = 0; k < channels; k++) {
        float m = contrast / std[k];
        float b = (pca[k] - mean[k]) * m + illumination / std[k];
        long offset = ((long) row * channels * hw + (long) k * hw) * Float.BYTES;
        try (Mat plane = channels > 1 ? planes.get(swap[k]) : null;
            Mat out = new Mat(height, width, CV_32FC1, base.position(offset))) {
          (channels > 1 ? plane : src).convertTo(out, CV_32F, m, b);
        }
      }
    }
  }

  /**
   * As {@link #writeBytes}, for planes (NCHW), with OpenCV: the window is mirrored ({@code flip})
   * and split straight into the row's planes of the batch, swapped to RGB(A) on the way.
   */
  void writeBytePlanes(Mat image, int x0, int y0, SeededRandom r, ByteBuffer dst, int row) {
    boolean mirrored = mirrored(r);
    BytePointer base = batchPointer(dst);
    int hw = height * width;
    int[] swap = swap();
    boolean whole = x0 == 0 && y0 == 0 && image.cols() == width && image.rows() == height;
    try (Mat window = whole ? null : image.apply(rect.x(x0).y(y0).width(width).height(height))) {
      Mat src = whole ? image : window;
      if (mirrored) {
        flip(src, flipped, 1);
        src = flipped;
      }
      long first = (long) row * channels * hw;
      if (channels == 1) {
        try (Mat out = new Mat(height, width, CV_8UC1, base.position(first))) {
          src.copyTo(out);
        }
        return;
      }
      // OpenCV's channel c (B, G, R, A) goes to output plane swap[c] (R, G, B, A).
      outPlanes.resize(channels);
      Mat[] headers = new Mat[channels];
      try {
        for (int c = 0; c < channels; c++) {
          headers[c] = new Mat(height, width, CV_8UC1, base.position(first + (long) swap[c] * hw));
          outPlanes.put(c, headers[c]);
        }
        split(src, outPlanes);
      } finally {
        for (Mat h : headers) {
          if (h != null) {
            h.close();
          }
        }
      }
    }
  }

  /** The batch buffer's address, wrapped once per buffer (the ring reuses a few). */
  private BytePointer batchPointer(ByteBuffer dst) {
    BytePointer p = batchPointer;
    if (dst != batchBuffer || p == null) {
      p = new BytePointer(dst);
      batchPointer = p;
      batchBuffer = dst;
    }
    return p;
  }

  private void pcaOffsets(SeededRandom r) {
    java.util.Arrays.fill(pca, 0f);
    if (a.pcaNoise() > 0 && channels >= 3) {
      float a0 = r.nextGaussian(a.pcaNoise()) * EIGVAL[0];
      float a1 = r.nextGaussian(a.pcaNoise()) * EIGVAL[1];
      float a2 = r.nextGaussian(a.pcaNoise()) * EIGVAL[2];
      for (int c = 0; c < 3; c++) {
        pca[c] = EIGVEC[c][0] * a0 + EIGVEC[c][1] * a1 + EIGVEC[c][2] * a2;
      }
    }
  }

  /**
   * Copies the window's rows (and what lies between them) from the image in one call, so the
   * loops below read a Java array: a JNI call per row costs more than the row's arithmetic.
   *
   * @return the distance between rows in {@link #window}
   */
  private int window(Mat image, int x0, int y0) {
    long step = image.step();
    long span = (height - 1) * step + (long) width * channels;
    if (span > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("an image row of " + step + " bytes is too large");
    }
    if (window.length < span) {
      window = new byte[(int) span];
    }
    BytePointer data = image.data();
    data.position(y0 * step + (long) x0 * channels).get(window, 0, (int) span);
    return (int) step;
  }

  /** Per-channel lookup tables: one plane (or one interleaved pass) at a time, no branch per value. */
  private void tableFloats(float[] out, int step, boolean mirrored) {
    byte[] in = window;
    int c = channels;
    int w = width;
    int hw = height * w;
    int[] swap = swap();
    if (!channelsLast) {
      for (int k = 0; k < c; k++) {
        float[] t = table[k];
        int plane = k * hw;
        for (int i = 0; i < height; i++) {
          int src = i * step + swap[k];
          int base = plane + i * w;
          if (mirrored) {
            int last = base + w - 1;
            for (int j = 0; j < w; j++) {
              out[last - j] = t[in[src + j * c] & 0xff];
            }
          } else {
            for (int j = 0; j < w; j++) {
              out[base + j] = t[in[src + j * c] & 0xff];
            }
          }
        }
      }
    } else {
      for (int i = 0; i < height; i++) {
        int src = i * step;
        for (int j = 0; j < w; j++) {
          int o = (i * w + (mirrored ? w - 1 - j : j)) * c;
          int p = src + j * c;
          for (int k = 0; k < c; k++) {
            out[o + k] = table[k][in[p + swap[k]] & 0xff];
          }
        }
      }
    }
  }

  /** With a mean image: {@code (v + pca - meanImg) * mul + add} per value. */
  private void meanFloats(float[] out, int step, boolean mirrored, float[] meanImg) {
    byte[] in = window;
    int c = channels;
    int w = width;
    int hw = height * w;
    int[] swap = swap();
    for (int i = 0; i < height; i++) {
      int src = i * step;
      for (int j = 0; j < w; j++) {
        int col = mirrored ? w - 1 - j : j;
        for (int k = 0; k < c; k++) {
          int v = in[src + j * c + swap[k]] & 0xff;
          float value = (v + pca[k] - meanImg[k * hw + i * w + j]) * mul[k] + add[k];
          out[channelsLast ? (i * w + col) * c + k : k * hw + i * w + col] = value;
        }
      }
    }
  }

  /** Writes the window as uint8 row {@code row} of {@code dst}: raw pixels, swapped and mirrored, no arithmetic. */
  void writeBytes(Mat image, int x0, int y0, SeededRandom r, ByteBuffer dst, int row) {
    boolean mirrored = mirrored(r);
    int step = window(image, x0, y0);
    byte[] in = window;
    byte[] out = bytes;
    int c = channels;
    int w = width;
    int hw = height * w;
    int[] swap = swap();
    for (int i = 0; i < height; i++) {
      int src = i * step;
      for (int j = 0; j < w; j++) {
        int col = mirrored ? w - 1 - j : j;
        for (int k = 0; k < c; k++) {
          out[channelsLast ? (i * w + col) * c + k : k * hw + i * w + col] = in[src + j * c + swap[k]];
        }
      }
    }
    dst.put(row * out.length, out, 0, out.length);
  }

  private boolean mirrored(SeededRandom r) {
    boolean coin = a.randMirror() && r.nextBoolean();
    return coin || a.mirror();
  }

  private static final int[] GRAY = {0};
  private static final int[] BGR = {2, 1, 0};
  private static final int[] BGRA = {2, 1, 0, 3};

  /** Where output channel c is in OpenCV's pixel: BGR(A) to RGB(A). */
  private int[] swap() {
    return channels == 1 ? GRAY : channels == 3 ? BGR : BGRA;
  }
}
