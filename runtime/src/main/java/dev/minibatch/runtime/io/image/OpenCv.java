package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.global.opencv_imgproc;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * Loads OpenCV's natives once, with an error that says what to add when they are missing, and keeps
 * OpenCV's own thread pool out of the way: the providers' reader threads are the parallelism, and
 * OpenCV's pool would compete with them (and with ND4J's) for the same cores.
 */
final class OpenCv {
  private static volatile boolean loaded;

  private OpenCv() {}

  /**
   * Decodes the {@code length} encoded bytes at {@code data + offset} ({@code imdecode} with {@code
   * flags}), without copying them. The result is empty when OpenCV cannot decode them; the caller
   * closes it.
   */
  static Mat decode(BytePointer data, long offset, int length, int flags) {
    try (Mat bytes = new Mat(1, length, CV_8UC1, data.position(offset))) {
      return imdecode(bytes, flags);
    }
  }

  /**
   * The size an image of {@code rows} x {@code cols} is resized to so that its shorter side is
   * {@code side} and its aspect ratio kept (integer arithmetic, as MXNet's augmenter and im2rec):
   * {@code {width, height}} written into {@code out}.
   */
  static void shorterSide(int rows, int cols, int side, int[] out) {
    if (rows > cols) {
      out[0] = side;
      out[1] = (int) ((long) side * rows / cols);
    } else {
      out[0] = (int) ((long) side * cols / rows);
      out[1] = side;
    }
  }

  /**
   * Loads the natives.
   *
   * @throws IllegalStateException naming the artifact to add if OpenCV's natives are not on the
   *     class path for this platform
   */
  static void require() {
    if (loaded) {
      return;
    }
    synchronized (OpenCv.class) {
      if (loaded) {
        return;
      }
      try {
        Loader.load(opencv_core.class);
        Loader.load(opencv_imgproc.class);
        Loader.load(opencv_imgcodecs.class);
      } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
        throw new IllegalStateException("OpenCV's native libraries for " + Loader.getPlatform() + " are not on the "
            + "class path: add the dependency org.bytedeco:opencv:4.5.5-1.5.7 with <classifier>" + Loader.getPlatform()
            + "</classifier> (docs/images.md)", e);
      }
      // Sequential OpenCV calls: minibatch's reader threads decode images in parallel.
      opencv_core.setNumThreads(0);
      loaded = true;
    }
  }
}
