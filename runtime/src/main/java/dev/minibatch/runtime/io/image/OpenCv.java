package dev.minibatch.runtime.io.image;

import org.bytedeco.javacpp.Loader;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.global.opencv_imgproc;

/**
 * Loads OpenCV's natives once, with an error that says what to add when they are missing, and keeps
 * OpenCV's own thread pool out of the way: the providers' reader threads are the parallelism, and
 * OpenCV's pool would compete with them (and with ND4J's) for the same cores.
 */
final class OpenCv {
  private static volatile boolean loaded;

  private OpenCv() {}

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
