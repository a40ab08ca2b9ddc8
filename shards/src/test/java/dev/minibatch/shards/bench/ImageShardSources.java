package dev.minibatch.shards.bench;

import static org.bytedeco.opencv.global.opencv_core.CV_16SC3;
import static org.bytedeco.opencv.global.opencv_core.CV_64FC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_core.flip;
import static org.bytedeco.opencv.global.opencv_core.randn;
import static org.bytedeco.opencv.global.opencv_core.setRNGSeed;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_AREA;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_CUBIC;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.internal.pipeline.Workers;
import dev.minibatch.runtime.io.image.EncodedImages;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import dev.minibatch.shards.ImageShardWriter;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.shards.servers.LoopbackHdfs;
import dev.minibatch.shards.servers.LoopbackS3;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * Paired rounds (docs/performance.md, "The same pipeline from HDFS and S3 on loopback"): one shard set of
 * {@value #IMAGES} JPEGs shaped like ImageNet's, on the local disk, on HDFS (MiniDFSCluster) and on
 * S3 (S3Proxy over an in-memory store, through S3A), both servers in this JVM on 127.0.0.1, read with
 * issue 44's pipeline: RandomResizedCrop 224, random mirror, ImageNet's mean/std, float32 NCHW,
 * batches of {@value #BATCH}, shuffled with a seed. Files of {@value #PER_FILE} images, a shuffle
 * window of one file and a cache of 3 files (2 readers need 3), so every epoch reads most files again over its file
 * system. Per round one epoch of each source in alternating order; the ratios to local are taken
 * within each round. Each epoch also records the process's CPU time, the part of it spent on the
 * runtime's worker threads (readers, read-ahead: the file systems' clients read on them) and on the
 * consuming thread, and the JIT compiler's and garbage collector's threads' (from {@code
 * /proc/self/task}): what remains is the servers (and the clients' few own threads). The runtime's
 * own CPU per image, local over remote, is the ratio a trainer would see with the servers on other
 * machines.
 *
 * <p>The JPEGs are made at start, in a temporary directory deleted at the end, from the real photos
 * of {@code benz_train.rec} in the shared data folder (system property {@code minibatch.sharedData},
 * default {@code /work/shared/data}; their licences permit benchmark use only, so they are never
 * stored in the repository): image {@code i} a seeded window of photo {@code i mod photos}, resized
 * to ImageNet's shapes (70 % with a long side of 500, 15 % of 600-1 200, 15 % of 160-450, at 4:3, 3:2
 * or 1:1, a fifth portrait), flipped or not, with Gaussian grain of sigma 8, JPEG quality 95.
 * Usage: {@code ImageShardSources [rounds [readers...]]}, default 5 rounds of 1 reader.
 */
public final class ImageShardSources {
  private static final int IMAGES = 512;
  private static final int PER_FILE = 64;
  private static final int BATCH = 64;
  private static final int OUT = 224;
  private static final long SEED = 44;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private ImageShardSources() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int[] readers = args.length > 1 ? Stream.of(args).skip(1).mapToInt(Integer::parseInt).toArray() : new int[] {1};
    Path dir = Files.createTempDirectory("minibatch-image-shard-sources");
    try {
      run(rounds, readers, dir);
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    System.exit(0); // the servers' stray non-daemon threads
  }

  private static void run(int rounds, int[] readerCounts, Path dir) throws Exception {
    Path rec = Path.of(System.getProperty("minibatch.sharedData", "/work/shared/data"), "recordio", "benz_train.rec");
    List<EncodedImages.Image> images = images(rec);
    long bytes = images.stream().mapToLong(i -> i.bytes().length).sum();
    System.out.printf(Locale.ROOT, "%d JPEGs from %s: mean %.1f KB%n", IMAGES, rec, bytes / 1024.0 / IMAGES);
    try (LoopbackHdfs hdfs = LoopbackHdfs.start(); LoopbackS3 s3 = LoopbackS3.start()) {
      String[] names = {"local", "hdfs", "s3"};
      String[] where = {dir.resolve("set").toString(), hdfs.root().resolve("/set").toString(),
          s3.root().resolve("set").toString()};
      Configuration[] confs = {new Configuration(), hdfs.conf(), s3.conf()};
      for (int v = 0; v < 3; v++) {
        long t = System.nanoTime();
        ImageShardWriter.builder().dataShape(3, OUT, OUT)
            .writer(ShardWriter.builder().samplesPerFile(PER_FILE).configuration(confs[v]).build()).build()
            .write(images, where[v]);
        System.out.printf(Locale.ROOT, "write %s: %.2f s%n", names[v], (System.nanoTime() - t) / 1e9);
      }
      images = null;
      System.out.println("load average before: " + loadAverage());
      for (int readers : readerCounts) {
        ShardProvider[] p = new ShardProvider[3];
        try {
          for (int v = 0; v < 3; v++) {
            p[v] = ShardProvider.builder(where[v]).configuration(confs[v]).batchSize(BATCH).shuffle(true).seed(SEED)
                .shuffleWindow(PER_FILE).cacheFiles(3).readers(readers)
                .augment("data", a -> a.randomResizedCrop(true).randMirror(true))
                .normalize("data", n -> n.meanRgb(123.68f, 116.28f, 103.53f).stdRgb(58.395f, 57.12f, 57.375f))
                .build();
          }
          for (int w = 0; w < 2; w++) {
            for (ShardProvider each : p) {
              epoch(each); // warm-up: the JIT compiles the servers' and clients' code too
            }
          }
          Epoch[][] e = new Epoch[rounds][];
          for (int r = 0; r < rounds; r++) {
            Epoch[] round = new Epoch[3];
            for (int j = 0; j < 3; j++) {
              int v = r % 2 == 0 ? j : 2 - j;
              round[v] = epoch(p[v]);
            }
            e[r] = round;
            System.out.printf(Locale.ROOT, "readers %d round %d: local %.0f, hdfs %.0f, s3 %.0f images/s;"
                + " hdfs/local %.3f, s3/local %.3f; CPU ms/image (process | workers+consumer | rest): %s, %s, %s%n",
                readers, r, round[0].rate(), round[1].rate(), round[2].rate(), round[1].rate() / round[0].rate(),
                round[2].rate() / round[0].rate(), round[0].cpu(), round[1].cpu(), round[2].cpu());
          }
          System.out.printf("readers %d, over %d rounds, median (min-max):%n", readers, rounds);
          for (int v = 0; v < 3; v++) {
            int vv = v;
            System.out.printf("  %s images/s %s; CPU ms/image: process %s, workers+consumer %s, rest %s,"
                + " rest less JIT+GC %s%n", names[v], summary(e, x -> x[vv].rate(), "%.0f"),
                summary(e, x -> x[vv].processMs(), "%.3f"), summary(e, x -> x[vv].ownMs(), "%.3f"),
                summary(e, x -> x[vv].restMs(), "%.3f"), summary(e, x -> x[vv].serversMs(), "%.3f"));
          }
          System.out.printf("  hdfs / local %s; s3 / local %s%n", summary(e, x -> x[1].rate() / x[0].rate(), "%.3f"),
              summary(e, x -> x[2].rate() / x[0].rate(), "%.3f"));
          System.out.printf("  extra CPU over local, share of the remote epoch's process CPU: hdfs %s, s3 %s%n",
              summary(e, x -> (x[1].processMs() - x[0].processMs()) / x[1].processMs(), "%.3f"),
              summary(e, x -> (x[2].processMs() - x[0].processMs()) / x[2].processMs(), "%.3f"));
          System.out.printf("  remote / local by the runtime's own CPU (servers on other machines): hdfs %s, s3 %s%n",
              summary(e, x -> x[0].ownMs() / x[1].ownMs(), "%.3f"), summary(e, x -> x[0].ownMs() / x[2].ownMs(), "%.3f"));
          System.out.printf("  file loads: local %d, hdfs %d, s3 %d over %d epochs each%n", p[0].fileLoads(),
              p[1].fileLoads(), p[2].fileLoads(), rounds + 1);
        } finally {
          for (ShardProvider each : p) {
            if (each != null) {
              each.close();
            }
          }
        }
      }
      System.out.println("load average after: " + loadAverage());
    }
  }

  /**
   * One epoch: its images per second and CPU milliseconds per image of the whole process, of the
   * runtime's worker threads plus the consuming thread, and of everything else.
   */
  private record Epoch(double rate, double processMs, double ownMs, double jitGcMs) {
    double restMs() {
      return processMs - ownMs;
    }

    /** The rest less the JIT compiler's and the collector's CPU time: the servers and the clients' own threads. */
    double serversMs() {
      return restMs() - jitGcMs;
    }

    String cpu() {
      return String.format(Locale.ROOT, "%.3f | %.3f | %.3f (JIT+GC %.3f)", processMs, ownMs, restMs(), jitGcMs);
    }
  }

  private static Epoch epoch(Iterable<NamedBatch> provider) {
    long jitGc = jitGcNanos();
    long process = processCpu();
    long workers = Workers.workerCpuNanos();
    long consumer = THREADS.getCurrentThreadCpuTime();
    long t = System.nanoTime();
    long rows = 0;
    double sum = 0;
    for (NamedBatch b : provider) {
      rows += b.rows();
      sum += b.data().get(0).getDouble(0L, 0L, 0L, 0L); // touches each batch, as a trainer would
    }
    double seconds = (System.nanoTime() - t) / 1e9;
    long own = THREADS.getCurrentThreadCpuTime() - consumer + Workers.workerCpuNanos() - workers;
    long all = processCpu() - process;
    long jitGcCpu = jitGcNanos() - jitGc;
    if (rows != IMAGES || Double.isNaN(sum)) {
      throw new IllegalStateException("an epoch delivered " + rows + " images (sum " + sum + ")");
    }
    return new Epoch(rows / seconds, all / 1e6 / rows, own / 1e6 / rows, jitGcCpu / 1e6 / rows);
  }

  /**
   * The CPU time of the JVM's JIT compiler and garbage collector threads so far, nanoseconds, from
   * {@code /proc/self/task} (the JVM's own beans give these as wall time, and hide the compiler
   * threads from {@link ThreadMXBean}); 0 where there is no {@code /proc}.
   */
  private static long jitGcNanos() {
    long ticks = 0;
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : tasks.toList()) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (java.io.IOException ended) {
          continue; // the thread ended meanwhile
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler") || name.startsWith("GC Thread")
            || name.startsWith("G1 ")) {
          // Fields after the name: state is field 3, utime 14, stime 15.
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
    return ticks * 10_000_000L; // USER_HZ is 100 on Linux
  }

  private static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String summary(Epoch[][] e, java.util.function.ToDoubleFunction<Epoch[]> f, String format) {
    double[] s = Stream.of(e).mapToDouble(f).sorted().toArray();
    double median = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    return String.format(Locale.ROOT, format + " (" + format + "-" + format + ")", median, s[0], s[s.length - 1]);
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /** {@link #IMAGES} ImageNet-shaped JPEGs from the photos of {@code rec}, each labelled with its photo's label. */
  private static List<EncodedImages.Image> images(Path rec) {
    List<Mat> photos = new ArrayList<>();
    List<Float> labels = new ArrayList<>();
    try (RecordIOFile file = RecordIOFile.open(rec)) {
      for (int i = 0; i < file.records(); i++) {
        ImageRecord r = ImageRecord.parse(file.read(i, null));
        Mat m = decode(r.image());
        if (m.empty()) {
          throw new IllegalStateException(rec + ": record " + i + " holds no image OpenCV decodes");
        }
        photos.add(m);
        labels.add(r.label());
      }
    }
    if (photos.isEmpty()) {
      throw new IllegalStateException(rec + " holds no records");
    }
    List<EncodedImages.Image> out = new ArrayList<>();
    for (int i = 0; i < IMAGES; i++) {
      int k = i % photos.size();
      out.add(new EncodedImages.Image(jpeg(photos.get(k), i), new float[] {labels.get(k)}));
    }
    photos.forEach(Mat::close);
    return out;
  }

  private static Mat decode(byte[] jpeg) {
    try (BytePointer p = new BytePointer(jpeg); Mat wrapped = new Mat(1, jpeg.length, CV_8UC1, p)) {
      return imdecode(wrapped, IMREAD_COLOR);
    }
  }

  /** Image {@code i}: a seeded window of {@code photo} resized to one of ImageNet's shapes, grain added, quality 95. */
  private static byte[] jpeg(Mat photo, int i) {
    SplittableRandom r = new SplittableRandom(SEED * 7_919 + i);
    double size = r.nextDouble();
    int longSide = size < 0.70 ? 500 : size < 0.85 ? r.nextInt(600, 1_201) : r.nextInt(160, 451);
    double shape = r.nextDouble();
    double aspect = shape < 0.60 ? 4.0 / 3 : shape < 0.85 ? 1.5 : 1.0;
    boolean portrait = r.nextDouble() < 0.2;
    int w = portrait ? (int) Math.round(longSide / aspect) : longSide;
    int h = portrait ? longSide : (int) Math.round(longSide / aspect);
    // The photo's largest window at the target's aspect, scaled by 0.7-1, at a random place.
    double fit = Math.min(photo.cols() / (double) w, photo.rows() / (double) h) * (0.7 + 0.3 * r.nextDouble());
    int ww = Math.max(1, (int) (w * fit));
    int wh = Math.max(1, (int) (h * fit));
    try (Rect box = new Rect(r.nextInt(photo.cols() - ww + 1), r.nextInt(photo.rows() - wh + 1), ww, wh);
        Mat window = photo.apply(box); Mat sized = new Mat(); Size target = new Size(w, h); Mat wide = new Mat();
        Mat grain = new Mat(h, w, CV_16SC3); Mat mean = new Mat(1, 3, CV_64FC1, new Scalar(0.0));
        Mat sigma = new Mat(1, 3, CV_64FC1, new Scalar(8.0)); BytePointer out = new BytePointer();
        IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY, 95)) {
      resize(window, sized, target, 0, 0, ww > w ? INTER_AREA : INTER_CUBIC);
      if (r.nextBoolean()) {
        flip(sized, sized, 1);
      }
      // Grain: the photos are smooth and partly enlarged, and without it they encode at half ImageNet's bytes.
      sized.convertTo(wide, CV_16SC3);
      setRNGSeed((int) (SEED * 31 + i));
      randn(grain, mean, sigma);
      org.bytedeco.opencv.global.opencv_core.add(wide, grain, wide);
      wide.convertTo(sized, CV_8UC3);
      if (!imencode(".jpg", sized, out, params)) {
        throw new IllegalStateException("OpenCV could not encode image " + i);
      }
      byte[] b = new byte[(int) out.limit()];
      out.get(b);
      return b;
    }
  }
}
