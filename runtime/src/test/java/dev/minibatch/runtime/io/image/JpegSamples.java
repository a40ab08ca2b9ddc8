package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;

import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOInvalidTreeException;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import javax.imageio.stream.ImageInputStreamImpl;
import javax.imageio.stream.ImageOutputStream;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.indexer.UByteIndexer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.jspecify.annotations.Nullable;

/**
 * JPEGs for the {@link JpegCheck} tests, from three encoders (OpenCV's libjpeg-turbo, the JDK's
 * JPEG writer, and by hand), and libjpeg's own verdict on any bytes through {@code javax.imageio}.
 */
final class JpegSamples {
  private JpegSamples() {}

  /**
   * A picture with what a photo gives an entropy coder: smooth gradients, a few edges, and noise,
   * all from {@code seed}.
   */
  static Mat picture(int height, int width, int channels, long seed) {
    Random r = new Random(seed);
    double[] a = new double[channels];
    double[] b = new double[channels];
    for (int c = 0; c < channels; c++) {
      a[c] = 0.5 + 3 * r.nextDouble();
      b[c] = 0.5 + 3 * r.nextDouble();
    }
    int edge = r.nextInt(Math.max(1, width));
    int noise = 4 + r.nextInt(20);
    return TestImages.mat(height, width, channels, (y, x, c) -> {
      double v = 128 + 60 * Math.sin(a[c] * x / 9.0) * Math.cos(b[c] * y / 7.0) + (x > edge ? 40 : -40);
      return (int) Math.max(0, Math.min(255, v + r.nextGaussian() * noise));
    });
  }

  /** {@code m} encoded by OpenCV's {@code imencode(".jpg")} with these {@code IMWRITE_*} pairs. */
  static byte[] opencv(Mat m, int... params) {
    try (BytePointer out = new BytePointer(); IntPointer p = new IntPointer(params)) {
      if (!imencode(".jpg", m, out, p)) {
        throw new IllegalStateException("OpenCV could not encode the JPEG");
      }
      byte[] b = new byte[(int) out.limit()];
      out.get(b);
      return b;
    }
  }

  /**
   * A colour picture encoded by the JDK's JPEG writer with the first component sampled {@code h} x
   * {@code v} times the others (1x1: 4:4:4, 2x1: 4:2:2, 2x2: 4:2:0) and a restart marker every
   * {@code restartInterval} MCUs (0: none).
   */
  static byte[] jdk(int height, int width, long seed, int h, int v, int restartInterval) {
    BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
    try (Mat m = picture(height, width, 3, seed); UByteIndexer ix = m.createIndexer()) {
      for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
          img.setRGB(x, y, ix.get(y, x, 2) << 16 | ix.get(y, x, 1) << 8 | ix.get(y, x, 0));
        }
      }
    }
    ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
    try {
      ImageWriteParam param = writer.getDefaultWriteParam();
      IIOMetadata metadata = writer.getDefaultImageMetadata(new ImageTypeSpecifier(img), param);
      String format = "javax_imageio_jpeg_image_1.0";
      IIOMetadataNode tree = (IIOMetadataNode) metadata.getAsTree(format);
      IIOMetadataNode luma = (IIOMetadataNode) tree.getElementsByTagName("componentSpec").item(0);
      luma.setAttribute("HsamplingFactor", Integer.toString(h));
      luma.setAttribute("VsamplingFactor", Integer.toString(v));
      if (restartInterval > 0) {
        IIOMetadataNode dri = new IIOMetadataNode("dri");
        dri.setAttribute("interval", Integer.toString(restartInterval));
        tree.getElementsByTagName("markerSequence").item(0).insertBefore(dri, tree.getElementsByTagName("sos").item(0));
      }
      metadata.setFromTree(format, tree);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ImageOutputStream out = ImageIO.createImageOutputStream(bytes)) {
        writer.setOutput(out);
        writer.write(null, new IIOImage(img, null, metadata), param);
      }
      return bytes.toByteArray();
    } catch (IIOInvalidTreeException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      writer.dispose();
    }
  }

  /**
   * A colour JPEG whose three components are in three scans of their own (non-interleaved
   * sequential), 4:2:0: made from three grayscale JPEGs that OpenCV encodes at the components' own
   * sizes ({@code width} x {@code height}, then half of each rounded up) with the same quality, so
   * that they share their tables, and whose scans are spliced under one frame header. Each gray
   * scan is the non-interleaved scan of a component of that size: its blocks in raster order.
   */
  static byte[] threeScans(int height, int width, long seed, int quality, int restartInterval) {
    byte[][] gray = new byte[3][];
    int[][] sizes = {{height, width}, {(height + 1) / 2, (width + 1) / 2}, {(height + 1) / 2, (width + 1) / 2}};
    for (int c = 0; c < 3; c++) {
      try (Mat m = picture(sizes[c][0], sizes[c][1], 1, seed + c)) {
        gray[c] = opencv(m, 1 /* IMWRITE_JPEG_QUALITY */, quality, 4 /* IMWRITE_JPEG_RST_INTERVAL */, restartInterval);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0xFF);
    out.write(0xD8);
    byte[] tables = segmentsBeforeScan(gray[0]);
    for (int c = 1; c < 3; c++) {
      if (!Arrays.equals(tables, segmentsBeforeScan(gray[c]))) {
        throw new IllegalStateException("the gray JPEGs' tables differ");
      }
    }
    out.write(tables, 0, tables.length);
    out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xC0, 0, 17, 8, (byte) (height >> 8), (byte) height,
        (byte) (width >> 8), (byte) width, 3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0});
    for (int c = 0; c < 3; c++) {
      out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xDA, 0, 8, 1, (byte) (c + 1), 0, 0, 63, 0});
      int from = scanStart(gray[c]);
      out.write(gray[c], from, gray[c].length - 2 - from);
    }
    out.write(0xFF);
    out.write(0xD9);
    return out.toByteArray();
  }

  /** The DQT, DHT and DRI segments of a JPEG, in order, as they are. */
  private static byte[] segmentsBeforeScan(byte[] jpeg) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int p = 2;
    while ((jpeg[p + 1] & 0xFF) != 0xDA) {
      int code = jpeg[p + 1] & 0xFF;
      int length = (jpeg[p + 2] & 0xFF) << 8 | (jpeg[p + 3] & 0xFF);
      if (code == 0xDB || code == 0xC4 || code == 0xDD) {
        out.write(jpeg, p, 2 + length);
      }
      p += 2 + length;
    }
    return out.toByteArray();
  }

  /** Where the first scan's entropy-coded data starts: after the first SOS segment. */
  static int scanStart(byte[] jpeg) {
    int p = 2;
    while (true) {
      int length = (jpeg[p + 2] & 0xFF) << 8 | (jpeg[p + 3] & 0xFF);
      if ((jpeg[p + 1] & 0xFF) == 0xDA) {
        return p + 2 + length;
      }
      p += 2 + length;
    }
  }

  /** A copy of {@code b} with {@code insert} put in at {@code at}. */
  static byte[] insert(byte[] b, int at, byte... insert) {
    byte[] out = new byte[b.length + insert.length];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(insert, 0, out, at, insert.length);
    System.arraycopy(b, at, out, at + insert.length, b.length - at);
    return out;
  }

  /** A copy of {@code b} without its bytes {@code from} to {@code to - 1}. */
  static byte[] cut(byte[] b, int from, int to) {
    byte[] out = new byte[b.length - (to - from)];
    System.arraycopy(b, 0, out, 0, from);
    System.arraycopy(b, to, out, from, b.length - to);
    return out;
  }

  /**
   * A hand-made 8-bit grayscale JPEG of {@code width} x {@code height} (blocks in raster order, one
   * per MCU), quantisation table of ones, with its entropy-coded data written from {@code bits}
   * (characters '0' and '1'; a '|' starts a new restart interval: the byte is padded with 1-bits and
   * RSTn follows), padded with 1-bits, 0xFF bytes stuffed. Its tables, chosen so that codes are easy
   * to write by hand:
   *
   * <ul>
   *   <li>DC: one code, {@code 0}: a difference of category 0;
   *   <li>AC, eight codes of 3 bits: {@code 000} end-of-block, {@code 001} one coefficient of
   *       category 1 (a magnitude bit follows), {@code 010} a zero then one of category 1, {@code
   *       011} sixteen zeros, {@code 100} a coefficient of category 11 (11 bits follow), {@code 101}
   *       the undefined symbol 0x50; {@code 110} and {@code 111...} are no code.
   * </ul>
   */
  static byte[] handMade(int width, int height, int restartInterval, String bits) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xD8});
    out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xDB, 0, 67, 0});
    byte[] ones = new byte[64];
    Arrays.fill(ones, (byte) 1);
    out.writeBytes(ones);
    out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xC0, 0, 11, 8, (byte) (height >> 8), (byte) height,
        (byte) (width >> 8), (byte) width, 1, 1, 0x11, 0});
    out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xC4, 0, 20, 0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0});
    out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xC4, 0, 25, 0x10, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0x00, 0x01, 0x11, (byte) 0xF0, 0x0B, 0x50});
    if (restartInterval > 0) {
      out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xDD, 0, 4, (byte) (restartInterval >> 8),
          (byte) restartInterval});
    }
    out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xDA, 0, 8, 1, 1, 0, 0, 63, 0});
    String[] intervals = bits.split("\\|", -1);
    for (int i = 0; i < intervals.length; i++) {
      if (i > 0) {
        out.writeBytes(new byte[] {(byte) 0xFF, (byte) (0xD0 + (i - 1) % 8)});
      }
      String s = intervals[i];
      while (s.length() % 8 != 0) {
        s += "1";
      }
      for (int k = 0; k < s.length(); k += 8) {
        int v = Integer.parseInt(s.substring(k, k + 8), 2);
        out.write(v);
        if (v == 0xFF) {
          out.write(0);
        }
      }
    }
    out.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xD9});
    return out.toByteArray();
  }

  /** {@code s} {@code n} times. */
  static String times(int n, String s) {
    return s.repeat(n);
  }

  /**
   * What libjpeg makes of some bytes, through {@code javax.imageio} (whose JPEG reader is libjpeg,
   * and passes its warnings to a listener).
   *
   * @param warnings libjpeg's warnings, then "error: …" if it gave up; empty when it says nothing
   * @param pixels the decoded samples, or null after an error
   */
  record Libjpeg(List<String> warnings, byte @Nullable [] pixels) {
    boolean silent() {
      return warnings.isEmpty();
    }
  }

  /**
   * Decodes {@code jpeg} with the JDK's reader, fed 64 bytes at a time. The small reads matter:
   * libjpeg-turbo (which some JDK builds use in place of the bundled libjpeg 6b) decodes in a fast
   * path when at least 512 bytes are buffered, and that path turns a bad Huffman code into a zero
   * without a warning; with less buffered it takes the careful path, which warns as libjpeg 6b
   * does.
   */
  static Libjpeg libjpeg(byte[] jpeg) {
    ImageReader reader = ImageIO.getImageReadersByFormatName("jpeg").next();
    List<String> warnings = new ArrayList<>();
    reader.addIIOReadWarningListener((source, warning) -> warnings.add(warning));
    byte[] pixels = null;
    try (Trickle in = new Trickle(jpeg)) {
      reader.setInput(in);
      BufferedImage img = reader.read(0);
      pixels = ((DataBufferByte) img.getRaster().getDataBuffer()).getData();
    } catch (IOException | RuntimeException e) {
      warnings.add("error: " + e);
    } finally {
      reader.dispose();
    }
    return new Libjpeg(warnings, pixels);
  }

  /** An image input stream over bytes that hands out at most 64 bytes per read. */
  private static final class Trickle extends ImageInputStreamImpl {
    private final byte[] b;

    Trickle(byte[] b) {
      this.b = b;
    }

    @Override
    public int read() {
      if (streamPos >= b.length) {
        return -1;
      }
      bitOffset = 0;
      return b[(int) streamPos++] & 0xFF;
    }

    @Override
    public int read(byte[] into, int off, int len) {
      if (streamPos >= b.length) {
        return -1;
      }
      bitOffset = 0;
      int n = (int) Math.min(Math.min(len, 64), b.length - streamPos);
      System.arraycopy(b, (int) streamPos, into, off, n);
      streamPos += n;
      return n;
    }

    @Override
    public long length() {
      return b.length;
    }
  }

  /** An OpenCV matrix of {@code channels} 8-bit channels, for callers that fill it themselves. */
  static Mat blank(int height, int width, int channels) {
    OpenCv.require();
    return new Mat(height, width, CV_8UC(channels));
  }
}
