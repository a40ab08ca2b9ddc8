package dev.minibatch.samples.mnist;

import dev.minibatch.runtime.io.idx.IdxFile;
import dev.minibatch.runtime.io.idx.IdxFile.IdxArray;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Loads MNIST digits: the 10 000 test digits bundled with the samples (no download), or the full
 * idx files from a directory.
 *
 * @param train the training digits
 * @param test the held-out digits
 */
public record MnistData(List<MnistDigit> train, List<MnistDigit> test) {
  private static final String IMAGES = "t10k-images-idx3-ubyte.gz";
  private static final String LABELS = "t10k-labels-idx1-ubyte.gz";

  /** The bundled t10k digits: the first 8 000 for training, the last 2 000 held out. */
  public static MnistData bundled() {
    List<MnistDigit> all = digits(
        IdxFile.parse("classpath:/mnist/" + IMAGES, resource(IMAGES), IdxFile.MNIST_IMAGES_MAGIC),
        IdxFile.parse("classpath:/mnist/" + LABELS, resource(LABELS), IdxFile.MNIST_LABELS_MAGIC));
    return new MnistData(List.copyOf(all.subList(0, 8000)), List.copyOf(all.subList(8000, all.size())));
  }

  /**
   * The full data set from {@code dir}: {@code train-images-idx3-ubyte}, {@code
   * train-labels-idx1-ubyte}, {@code t10k-images-idx3-ubyte}, {@code t10k-labels-idx1-ubyte}, each
   * raw or with {@code .gz}.
   *
   * @throws IllegalArgumentException naming a missing file
   */
  public static MnistData fromDirectory(Path dir) {
    return new MnistData(
        digits(IdxFile.read(find(dir, "train-images-idx3-ubyte"), IdxFile.MNIST_IMAGES_MAGIC),
            IdxFile.read(find(dir, "train-labels-idx1-ubyte"), IdxFile.MNIST_LABELS_MAGIC)),
        digits(IdxFile.read(find(dir, "t10k-images-idx3-ubyte"), IdxFile.MNIST_IMAGES_MAGIC),
            IdxFile.read(find(dir, "t10k-labels-idx1-ubyte"), IdxFile.MNIST_LABELS_MAGIC)));
  }

  /** The first {@code n} training digits (all of them if there are fewer), the same test digits. */
  public MnistData limitTrain(int n) {
    return new MnistData(train.subList(0, Math.min(n, train.size())), test);
  }

  private static List<MnistDigit> digits(IdxArray images, IdxArray labels) {
    if (images.count() != labels.count()) {
      throw new IllegalArgumentException(images.file() + " has " + images.count() + " images but "
          + labels.file() + " has " + labels.count() + " labels");
    }
    if (images.sampleSize() != MnistDigit.PIXELS) {
      throw new IllegalArgumentException(images.file() + ": expected 28×28 images, found " + images.sampleSize() + " pixels each");
    }
    int n = images.count();
    List<MnistDigit> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      float[] pixels = new float[MnistDigit.PIXELS];
      images.copyTo((long) i * MnistDigit.PIXELS, MnistDigit.PIXELS, pixels, 0, 1f / 255);
      out.add(new MnistDigit(pixels, (int) labels.getDouble(i)));
    }
    return out;
  }

  private static byte[] resource(String name) {
    try (InputStream in = MnistData.class.getResourceAsStream("/mnist/" + name)) {
      if (in == null) {
        throw new IllegalStateException("the bundled MNIST file /mnist/" + name + " is missing from the classpath");
      }
      try (InputStream gz = new GZIPInputStream(in, 1 << 16)) {
        return gz.readAllBytes();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the bundled /mnist/" + name, e);
    }
  }

  private static Path find(Path dir, String base) {
    for (String name : new String[] {base, base + ".gz"}) {
      Path p = dir.resolve(name);
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    throw new IllegalArgumentException("MNIST directory " + dir + " has neither " + base + " nor " + base + ".gz");
  }
}
