package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * MXNet's {@code mean_img}: the per-pixel mean of the output images, kept in a NumPy {@code .npy}
 * file (little-endian float32, shape (c, h, w), RGB order) so Python tools can read it. When the
 * file does not exist it is computed, as MXNet does, with one pass over every image with the
 * deterministic part of the augmentation (resize, padding, centre crop; no random draws) and saved.
 */
final class MeanImage {
  private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
  private static final Pattern SHAPE = Pattern.compile("'shape':\\s*\\(([0-9,\\s]*)\\)");

  private MeanImage() {}

  static float[] loadOrCompute(Path npy, ImageSource source, Augmentation a) {
    if (Files.exists(npy)) {
      return load(npy, a);
    }
    float[] mean = compute(source, a);
    save(npy, mean, a);
    return mean;
  }

  private static float[] compute(ImageSource source, Augmentation a) {
    Augmentation fixed = a.withoutRandomness();
    ImageRowWriter rows = new ImageRowWriter(source, fixed, false, false, null, false);
    ImageRowWriter.Worker w = rows.worker();
    int n = a.channels() * a.height() * a.width();
    double[] sum = new double[n];
    float[] one = new float[n];
    // A row in native memory, as the batch rows are, so the same writer fills it.
    ByteBuffer out = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder());
    java.nio.FloatBuffer values = out.asFloatBuffer();
    for (int i = 0; i < source.size(); i++) {
      ImageDecoder.Worker d = w.image;
      d.random.reset(0, 0, i);
      try (Mat image = w.decode(i)) {
        try {
          d.augmenter.apply(image, d.random);
        } catch (FileFormatException e) {
          throw e;
        } catch (RuntimeException e) {
          throw rows.error(i, "computing the mean image: " + e.getMessage(), e);
        }
        d.pixels.write(d.augmenter.result(), d.augmenter.x(), d.augmenter.y(), d.random, out, 0);
      }
      values.get(0, one);
      for (int k = 0; k < n; k++) {
        sum[k] += one[k];
      }
    }
    float[] mean = new float[n];
    for (int k = 0; k < n; k++) {
      mean[k] = (float) (sum[k] / source.size());
    }
    return mean;
  }

  static void save(Path npy, float[] mean, Augmentation a) {
    String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + a.channels() + ", " + a.height() + ", "
        + a.width() + "), }";
    int unpadded = MAGIC.length + 2 + 2 + dict.length() + 1;
    int padding = (64 - unpadded % 64) % 64;
    String header = dict + " ".repeat(padding) + "\n";
    ByteBuffer b = ByteBuffer.allocate(MAGIC.length + 4 + header.length() + 4 * mean.length)
        .order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC).put((byte) 1).put((byte) 0).putShort((short) header.length());
    b.put(header.getBytes(StandardCharsets.US_ASCII));
    b.asFloatBuffer().put(mean);
    try {
      Files.write(npy, b.array());
    } catch (IOException e) {
      throw IoFailure.of("write", "the mean image " + npy, e);
    }
  }

  static float[] load(Path npy, Augmentation a) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(npy);
    } catch (IOException e) {
      throw IoFailure.of("read", "the mean image " + npy, e);
    }
    String file = npy.toString();
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    if (bytes.length < 10 || !java.util.Arrays.equals(java.util.Arrays.copyOf(bytes, 6), MAGIC)) {
      throw new FileFormatException(file, "is not a NumPy .npy file (no \\x93NUMPY magic)");
    }
    int major = bytes[6];
    int headerLength;
    int start;
    if (major == 1) {
      headerLength = Short.toUnsignedInt(b.getShort(8));
      start = 10;
    } else if (major == 2 || major == 3) {
      if (bytes.length < 12) {
        throw new FileFormatException(file, "ends inside its header");
      }
      headerLength = b.getInt(8);
      start = 12;
    } else {
      throw new FileFormatException(file, ".npy version " + major + " is not supported");
    }
    // Compared as a difference: start + headerLength overflows for a header length near 2^31.
    if (headerLength < 0 || headerLength > bytes.length - start) {
      throw new FileFormatException(file, "ends inside its header");
    }
    String header = new String(bytes, start, headerLength, StandardCharsets.ISO_8859_1);
    if (!header.contains("'descr': '<f4'") || header.contains("'fortran_order': True")) {
      throw new FileFormatException(file, "must hold little-endian float32 ('<f4') in C order; its header is "
          + header.strip());
    }
    Matcher m = SHAPE.matcher(header);
    String expected = "(" + a.channels() + ", " + a.height() + ", " + a.width() + ")";
    if (!m.find() || !m.group(1).replaceAll("\\s", "").replaceAll(",$", "")
        .equals(a.channels() + "," + a.height() + "," + a.width())) {
      throw new FileFormatException(file, "holds a mean image of shape " + (m.find(0) ? "(" + m.group(1) + ")" : "?")
          + "; the output is " + expected + " (c, h, w)");
    }
    int n = a.channels() * a.height() * a.width();
    int data = start + headerLength;
    if (bytes.length - data != 4L * n) {
      throw new FileFormatException(file, "holds " + (bytes.length - data) + " data bytes; shape " + expected
          + " needs " + 4L * n);
    }
    float[] mean = new float[n];
    b.position(data);
    b.slice().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(mean);
    return mean;
  }
}
