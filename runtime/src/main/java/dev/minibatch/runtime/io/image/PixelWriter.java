package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_32F;
import static org.bytedeco.opencv.global.opencv_core.CV_32FC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.flip;
import static org.bytedeco.opencv.global.opencv_core.split;

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
 * <p>Planes (the default layout) go through OpenCV's vectorised kernels straight into the batch
 * row: {@code flip}, {@code split}, and for floats {@code convertTo} with the per-channel constants
 * folded into {@code v * a + b}. Interleaved output and the mean image, which OpenCV has no single
 * kernel for, take a Java loop over the window copied out of native memory in one call, with a
 * 256-entry table per channel built once per image, then one bulk copy into the row. Not
 * thread-safe.
 */
final class PixelWriter {
  /** ImageNet's RGB eigenvalues and eigenvectors (AlexNet's lighting noise), as MXNet's pca_noise uses. */
  private static final float[] EIGVAL = {55.46f, 4.794f, 1.148f};
  private static final float[][] EIGVEC = {
      {-0.5675f, 0.7192f, 0.4009f},
      {-0.5808f, -0.0045f, -0.8140f},
      {-0.5836f, -0.6948f, 0.4203f}};
  private static final int[] GRAY = {0};
  private static final int[] BGR = {2, 1, 0};
  private static final int[] BGRA = {2, 1, 0, 3};

  private final Augmentation a;
  private final boolean channelsLast;
  private final boolean uint8;
  private final float @Nullable [] meanImage;
  private final int channels;
  private final int height;
  private final int width;
  /** Where output channel c is in OpenCV's pixel: BGR(A) to RGB(A); the mapping is its own inverse. */
  private final int[] swap;
  /** The augmented image's window, copied from native memory in one call per image (Java loops only). */
  private byte[] window = new byte[0];
  /** The row, made by a Java loop, before its bulk copy into the batch (empty when OpenCV writes the row). */
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
  private @Nullable FloatBuffer batchFloats;

  PixelWriter(Augmentation a, boolean channelsLast, float @Nullable [] meanImage, boolean uint8) {
    this.a = a;
    this.channelsLast = channelsLast;
    this.uint8 = uint8;
    this.meanImage = meanImage;
    this.channels = a.channels();
    this.height = a.height();
    this.width = a.width();
    this.swap = channels == 1 ? GRAY : channels == 3 ? BGR : BGRA;
    int n = channels * height * width;
    boolean javaLoop = channelsLast || (meanImage != null && !uint8);
    this.floats = javaLoop && !uint8 ? new float[n] : new float[0];
    this.bytes = javaLoop && uint8 ? new byte[n] : new byte[0];
    this.table = new float[channels][256];
  }

  /**
   * Writes the window of {@code image} at ({@code x0}, {@code y0}) as row {@code row} of the batch
   * array whose bytes are {@code dst} (native order), drawing the mirror and the colour noise from
   * {@code r}.
   */
  void write(Mat image, int x0, int y0, SeededRandom r, ByteBuffer dst, int row) {
    boolean mirrored = a.randMirror() && r.nextBoolean() || a.mirror();
    if (uint8) {
      if (channelsLast) {
        bytesInterleaved(image, x0, y0, mirrored, dst, row);
      } else {
        bytePlanes(image, x0, y0, mirrored, dst, row);
      }
      return;
    }
    float contrast = (r.nextFloat() * a.maxRandomContrast() * 2 - a.maxRandomContrast() + 1) * a.scale();
    float illumination = (r.nextFloat() * a.maxRandomIllumination() * 2 - a.maxRandomIllumination()) * a.scale();
    pcaOffsets(r);
    float[] std = a.std();
    for (int c = 0; c < channels; c++) {
      mul[c] = contrast / std[c];
      add[c] = illumination / std[c];
    }
    float[] meanImg = meanImage;
    if (meanImg != null) {
      meanFloats(image, x0, y0, mirrored, meanImg);
    } else if (channelsLast) {
      floatsInterleaved(image, x0, y0, mirrored);
    } else {
      floatPlanes(image, x0, y0, mirrored, dst, row);
      return;
    }
    floatView(dst).put(row * floats.length, floats, 0, floats.length);
  }

  /** The output window of {@code image}: null when it is the whole image, else a view the caller closes. */
  private @Nullable Mat view(Mat image, int x0, int y0) {
    boolean whole = x0 == 0 && y0 == 0 && image.cols() == width && image.rows() == height;
    return whole ? null : image.apply(rect.x(x0).y(y0).width(width).height(height));
  }

  /** {@code window}, or its mirror image in a reused Mat. */
  private Mat oriented(Mat window, boolean mirrored) {
    if (!mirrored) {
      return window;
    }
    flip(window, flipped, 1);
    return flipped;
  }

  /** Each channel converted ({@code v * a + b}, in float) straight into its plane of the row. */
  private void floatPlanes(Mat image, int x0, int y0, boolean mirrored, ByteBuffer dst, int row) {
    float[] mean = a.mean();
    BytePointer base = batchPointer(dst);
    long hw = (long) height * width;
    try (Mat view = view(image, x0, y0)) {
      Mat src = oriented(view == null ? image : view, mirrored);
      if (channels > 1) {
        split(src, planes);
      }
      for (int k = 0; k < channels; k++) {
        float b = (pca[k] - mean[k]) * mul[k] + add[k];
        long offset = ((long) row * channels + k) * hw * Float.BYTES;
        try (Mat plane = channels > 1 ? planes.get(swap[k]) : null;
            Mat out = new Mat(height, width, CV_32FC1, base.position(offset))) {
          (plane != null ? plane : src).convertTo(out, CV_32F, mul[k], b);
        }
      }
    }
  }

  /** The channels split straight into the row's planes, OpenCV's channel c into output plane swap[c]. */
  private void bytePlanes(Mat image, int x0, int y0, boolean mirrored, ByteBuffer dst, int row) {
    BytePointer base = batchPointer(dst);
    long hw = (long) height * width;
    long first = (long) row * channels * hw;
    try (Mat view = view(image, x0, y0)) {
      Mat src = oriented(view == null ? image : view, mirrored);
      if (channels == 1) {
        try (Mat out = new Mat(height, width, CV_8UC1, base.position(first))) {
          src.copyTo(out);
        }
        return;
      }
      Mat[] headers = new Mat[channels];
      try {
        outPlanes.resize(channels);
        for (int c = 0; c < channels; c++) {
          headers[c] = new Mat(height, width, CV_8UC1, base.position(first + swap[c] * hw));
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

  /** Interleaved floats through the per-channel tables. */
  private void floatsInterleaved(Mat image, int x0, int y0, boolean mirrored) {
    float[] mean = a.mean();
    for (int c = 0; c < channels; c++) {
      float[] t = table[c];
      for (int v = 0; v < 256; v++) {
        t[v] = (v + pca[c] - mean[c]) * mul[c] + add[c];
      }
    }
    int step = copyWindow(image, x0, y0);
    byte[] in = window;
    float[] out = floats;
    int c = channels;
    int w = width;
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

  /** With a mean image, either layout: {@code (v + pca - meanImg) * mul + add} per value. */
  private void meanFloats(Mat image, int x0, int y0, boolean mirrored, float[] meanImg) {
    int step = copyWindow(image, x0, y0);
    byte[] in = window;
    float[] out = floats;
    int c = channels;
    int w = width;
    int hw = height * w;
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

  /** Interleaved raw bytes, swapped and mirrored. */
  private void bytesInterleaved(Mat image, int x0, int y0, boolean mirrored, ByteBuffer dst, int row) {
    int step = copyWindow(image, x0, y0);
    byte[] in = window;
    byte[] out = bytes;
    int c = channels;
    int w = width;
    for (int i = 0; i < height; i++) {
      int src = i * step;
      for (int j = 0; j < w; j++) {
        int o = (i * w + (mirrored ? w - 1 - j : j)) * c;
        int p = src + j * c;
        for (int k = 0; k < c; k++) {
          out[o + k] = in[p + swap[k]];
        }
      }
    }
    dst.put(row * out.length, out, 0, out.length);
  }

  /**
   * Copies the window's rows (and what lies between them) from the image in one call, so the Java
   * loops read a Java array: a JNI call per row costs more than the row's arithmetic.
   *
   * @return the distance between rows in {@link #window}
   */
  private int copyWindow(Mat image, int x0, int y0) {
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

  /** The batch buffer's address, wrapped once per buffer (the ring reuses a few). */
  private BytePointer batchPointer(ByteBuffer dst) {
    BytePointer p = batchPointer;
    if (dst != batchBuffer || p == null) {
      rewrap(dst);
      p = batchPointer;
    }
    return java.util.Objects.requireNonNull(p);
  }

  /** The batch buffer as floats, made once per buffer. */
  private FloatBuffer floatView(ByteBuffer dst) {
    FloatBuffer f = batchFloats;
    if (dst != batchBuffer || f == null) {
      rewrap(dst);
      f = batchFloats;
    }
    return java.util.Objects.requireNonNull(f);
  }

  private void rewrap(ByteBuffer dst) {
    batchBuffer = dst;
    batchPointer = new BytePointer(dst);
    batchFloats = dst.asFloatBuffer();
  }
}
