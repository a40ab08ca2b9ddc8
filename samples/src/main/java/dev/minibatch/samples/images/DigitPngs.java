package dev.minibatch.samples.images;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;

import dev.minibatch.runtime.io.image.Im2Rec;
import dev.minibatch.samples.mnist.MnistDigit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * Real images for the sample without a download: MNIST digits written as 28×28 grayscale PNG files
 * in one folder per class ({@code dir/3/00042.png}), then packed by im2rec into {@code .rec} and
 * {@code .idx} files (PNG inside, lossless).
 */
public final class DigitPngs {
  private DigitPngs() {}

  /**
   * The record files of one split.
   *
   * @param rec the image records
   * @param images how many
   */
  public record Packed(Path rec, int images) {}

  /** Writes {@code digits} as PNGs under {@code folder}, one sub-folder per label. */
  public static void write(List<MnistDigit> digits, Path folder) {
    Loader.load(opencv_imgcodecs.class);
    byte[] pixels = new byte[MnistDigit.PIXELS];
    try (BytePointer data = new BytePointer(MnistDigit.PIXELS);
        Mat image = new Mat(28, 28, CV_8UC1, data);
        BytePointer png = new BytePointer()) {
      for (int i = 0; i < digits.size(); i++) {
        MnistDigit d = digits.get(i);
        float[] f = d.image();
        for (int k = 0; k < pixels.length; k++) {
          pixels[k] = (byte) Math.round(f[k] * 255f);
        }
        data.put(pixels);
        if (!imencode(".png", image, png)) {
          throw new IllegalStateException("OpenCV could not encode digit " + i + " as PNG");
        }
        byte[] bytes = new byte[(int) png.limit()];
        png.get(bytes);
        Path dir = folder.resolve(Integer.toString(d.label()));
        Files.createDirectories(dir);
        Files.write(dir.resolve(String.format("%05d.png", i)), bytes);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the digit images under " + folder, e);
    }
  }

  /** Writes {@code digits} as PNGs under {@code work/name/} and packs them into {@code work/name.rec}. */
  public static Packed pack(List<MnistDigit> digits, Path work, String name, int threads) {
    Path folder = work.resolve(name);
    write(digits, folder);
    Im2Rec.Result r = Im2Rec.builder().folder(folder).output(work.resolve(name)).encoding(".png").color(0)
        .passThrough(true).threads(threads).build().run();
    return new Packed(r.rec(), r.images());
  }
}
