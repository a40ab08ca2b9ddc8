package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.setNumThreads;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_OPTIMIZE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;

import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.indexer.UByteIndexer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 24: what {@link JpegCheck} costs next to what it guards, OpenCV's decode of the same JPEG.
 * Both read the same encoded bytes from native memory, as the provider's reader threads do (the
 * check copies them into its buffer first); one thread; the time per image.
 *
 * <ul>
 *   <li>{@code check}: {@code JpegCheck.check} of every image of the set in turn;
 *   <li>{@code decode}: OpenCV {@code imdecode(IMREAD_COLOR)} of every image in turn.
 * </ul>
 *
 * <p>{@code images} picks the set: {@code noise256} and {@code noise500} are 64 colour pictures,
 * 256x256 and 500x375, made at setup from a seed (smooth gradients, edges and noise, as {@code
 * JpegSamples.picture} in the runtime's tests), OpenCV quality 90; {@code optimized256} is the
 * first with optimised Huffman tables, which differ from image to image, so that the check builds
 * its tables for every image; a path to a {@code .rec} file takes its records' images, and {@code
 * baseline:PATH} only those that are sequential (the check decodes their data; of progressive
 * JPEGs it only walks the markers).
 *
 * <p>This class sits in the runtime's package (in this module) because {@code JpegCheck} is
 * package-private.
 *
 * <p>Run: {@code mvn -B -ntp -pl benchmarks -am -DskipTests package exec:exec
 * -Dbench=JpegCheckBenchmark -Djmh.args="-p images=noise256,baseline:/path/train.rec"}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class JpegCheckBenchmark {
  /** The encoded images, in native memory. */
  @State(Scope.Benchmark)
  public static class Images {
    @Param({"noise256", "noise500", "optimized256"})
    String images;

    final List<ByteBuffer> buffers = new ArrayList<>();
    final List<BytePointer> pointers = new ArrayList<>();
    final List<Mat> wrapped = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp() {
      OpenCv.require();
      setNumThreads(0);
      List<byte[]> jpegs = switch (images) {
        case "noise256" -> pictures(64, 256, 256, false);
        case "noise500" -> pictures(64, 375, 500, false);
        case "optimized256" -> pictures(64, 256, 256, true);
        default -> images.startsWith("baseline:") ? records(Path.of(images.substring(9)), true)
            : records(Path.of(images), false);
      };
      if (jpegs.isEmpty()) {
        throw new IllegalStateException("no images in " + images);
      }
      long bytes = 0;
      for (byte[] j : jpegs) {
        bytes += j.length;
      }
      System.out.println(images + ": " + jpegs.size() + " JPEGs, " + bytes / jpegs.size() + " bytes on average");
      for (byte[] j : jpegs) {
        ByteBuffer b = ByteBuffer.allocateDirect(j.length).put(j).flip();
        BytePointer p = new BytePointer(b);
        buffers.add(b);
        pointers.add(p);
        wrapped.add(new Mat(1, j.length, CV_8UC1, p));
      }
      JpegCheck check = new JpegCheck();
      for (ByteBuffer b : buffers) {
        String problem = check.check(b, 0, b.limit());
        if (problem != null) {
          throw new IllegalStateException("a benchmark image is corrupt: " + problem);
        }
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      wrapped.forEach(Mat::close);
      pointers.forEach(BytePointer::close);
    }

    /** {@code n} pictures of {@code width} x {@code height}, quality 90, from a fixed seed. */
    static List<byte[]> pictures(int n, int height, int width, boolean optimize) {
      List<byte[]> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Random r = new Random(24_000 + i);
        double[] a = {0.5 + 3 * r.nextDouble(), 0.5 + 3 * r.nextDouble(), 0.5 + 3 * r.nextDouble()};
        double[] b = {0.5 + 3 * r.nextDouble(), 0.5 + 3 * r.nextDouble(), 0.5 + 3 * r.nextDouble()};
        int edge = r.nextInt(width);
        int noise = 4 + r.nextInt(20);
        try (Mat m = new Mat(height, width, org.bytedeco.opencv.global.opencv_core.CV_8UC3);
            UByteIndexer ix = m.createIndexer();
            BytePointer encoded = new BytePointer();
            IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY, 90, IMWRITE_JPEG_OPTIMIZE, optimize ? 1 : 0)) {
          for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
              for (int c = 0; c < 3; c++) {
                double v = 128 + 60 * Math.sin(a[c] * x / 9.0) * Math.cos(b[c] * y / 7.0) + (x > edge ? 40 : -40);
                ix.put(y, x, c, (int) Math.max(0, Math.min(255, v + r.nextGaussian() * noise)));
              }
            }
          }
          if (!imencode(".jpg", m, encoded, params)) {
            throw new IllegalStateException("OpenCV could not encode picture " + i);
          }
          byte[] j = new byte[(int) encoded.limit()];
          encoded.get(j);
          out.add(j);
        }
      }
      return out;
    }

    /** The images of a record file's records; only sequential JPEGs when {@code baselineOnly}. */
    private static List<byte[]> records(Path rec, boolean baselineOnly) {
      List<byte[]> out = new ArrayList<>();
      try (RecordIOFile f = RecordIOFile.builder(rec).open()) {
        ByteBuffer b = null;
        for (int i = 0; i < f.records(); i++) {
          b = f.read(i, b);
          ByteBuffer image = b.duplicate().position(ImageRecord.imageOffset(b));
          byte[] j = new byte[image.remaining()];
          image.get(j);
          if (!baselineOnly || sequential(j)) {
            out.add(j);
          }
        }
      }
      return out;
    }

    /** Whether a JPEG's frame header is SOF0 or SOF1 (walking its segments to the first frame header). */
    private static boolean sequential(byte[] j) {
      int p = 2;
      while (p + 4 <= j.length && (j[p] & 0xFF) == 0xFF) {
        int code = j[p + 1] & 0xFF;
        if (code >= 0xC0 && code <= 0xCF && code != 0xC4 && code != 0xC8 && code != 0xCC) {
          return code == 0xC0 || code == 0xC1;
        }
        p += 2 + ((j[p + 2] & 0xFF) << 8 | (j[p + 3] & 0xFF));
      }
      return false;
    }
  }

  /** The benchmark thread's checker, kept from image to image as a reader thread keeps its own. */
  @State(Scope.Thread)
  public static class Checker {
    final JpegCheck check = new JpegCheck();
  }

  /** Checks every image; returns the time for all of them (divide by the set's size). */
  @Benchmark
  public int check(Images s, Checker c) {
    int bad = 0;
    for (ByteBuffer b : s.buffers) {
      if (c.check.check(b, 0, b.limit()) != null) {
        bad++;
      }
    }
    return bad;
  }

  /** Decodes every image with OpenCV; returns a checksum so that nothing is dead code. */
  @Benchmark
  public long decode(Images s) {
    long sum = 0;
    for (Mat m : s.wrapped) {
      try (Mat image = imdecode(m, IMREAD_COLOR)) {
        sum += image.cols();
      }
    }
    return sum;
  }
}
