package dev.minibatch.runtime.io.image;

import static dev.minibatch.benchmarks.io.ImagePairs.column;
import static dev.minibatch.benchmarks.io.ImagePairs.print;
import static dev.minibatch.benchmarks.io.ImagePairs.rates;
import static org.bytedeco.opencv.global.opencv_core.CV_16SC3;
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

import dev.minibatch.benchmarks.io.ImagePairs.Epoch;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import dev.minibatch.shards.ImageShardWriter;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * Issue 44's figures, in {@link dev.minibatch.benchmarks.io.ImagePairs}' style (paired rounds, the
 * order rotating from round to round, each ratio taken within a round): {@value #IMAGES} JPEGs shaped
 * like ImageNet's, through RandomResizedCrop 224, horizontal flip, ImageNet's mean/std, float32 NCHW,
 * batches of {@value #BATCH}, shuffled; the consumer only counts each batch's rows.
 *
 * <ul>
 *   <li>{@code shards n}: {@link ShardProvider} over an image shard set of the JPEGs (files of 256),
 *       streamed from the local disk (a shuffle window of one file, a cache of 4 files, so every
 *       epoch reads every file again; property {@code cacheFiles}, 8 to hold the whole set),
 *       {@code readers(n)};
 *   <li>{@code rec n}: {@link ImageRecordProvider} over a {@code .rec}/{@code .idx} of the same
 *       JPEGs, {@code preprocessThreads(n)};
 *   <li>{@code loop n}: the limit, {@link FullDecodeLoop} with the same crop draws and a flip;
 *   <li>{@code torchvision 0w}, {@code torchvision 2w}: the peer, {@link TorchvisionPeer}: torchvision's ImageFolder over the
 *       same JPEGs written as {@code <label>/<n>.jpg}, the same transforms, a DataLoader with 0 or 2
 *       (persistent) workers, run by Debian's Python (property {@code python}, default {@code
 *       /usr/bin/python3}); left out, with how to install it, where torchvision is missing. Its CPU
 *       time is that of the Python process and its workers.
 * </ul>
 *
 * <p>Each variant's CPU time per epoch is recorded beside its wall time: for ours the JVM's process
 * CPU time (all threads), so the per-core comparison with torchvision holds on a machine whose other
 * loads make the wall times wander.
 *
 * <p>The JPEGs are made at start, under a temporary directory deleted at the end, from the real
 * photos of a record file (default {@code ../shared/data/recordio/benz_train.rec}; their licences
 * permit benchmark use only, so they are never copied into the repository): image {@code i} is a
 * seeded window of photo {@code i mod photos}, flipped or not, resized to ImageNet's size
 * distribution (70 % with a long side of 500 at 4:3, 3:2 or 1:1, landscape or portrait; 15 % larger,
 * long side 600–1 200; 15 % smaller, 160–450), with Gaussian noise of sigma 8 (property {@code
 * noise}) standing in for the grain that a photo resized up loses, encoded at quality 95 (property
 * {@code quality}): about 100 KB a JPEG, near ImageNet's 110 KB mean (at quality 90 and sigma 3 these
 * smooth, partly enlarged photos give 49 KB); its label is its photo's record label. With 0 rounds
 * only the data set is made and described.
 *
 * <p>Run: {@code mvn -B -ntp -pl benchmarks -am -DskipTests package}, then {@code java -cp
 * "benchmarks/target/classes:$(cat /tmp/cp)" dev.minibatch.runtime.io.image.ImagenetPairs 8 [rec]}
 * with the class path from {@code mvn -pl benchmarks dependency:build-classpath
 * -Dmdep.outputFile=/tmp/cp} (docs/performance.md gives the whole command).
 */
public final class ImagenetPairs {
  static final int IMAGES = 2048;
  static final int BATCH = 64;
  static final int OUT = 224;
  static final int PER_FILE = 256;
  static final long SEED = 44;
  static final int QUALITY = Integer.getInteger("quality", 95);
  static final float[] MEAN = {123.68f, 116.28f, 103.53f};
  static final float[] STD = {58.395f, 57.12f, 57.375f};

  private ImagenetPairs() {}

  /** Runs {@code args[0]} rounds (default 8) after two warm-up rounds over photos from {@code args[1]}. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    Path source = Path.of(args.length > 1 ? args[1] : "../shared/data/recordio/benz_train.rec");
    OpenCv.require();
    Path dir = Files.createTempDirectory("minibatch-imagenet-pairs");
    try {
      run(rounds, source, dir);
    } finally {
      deleteTree(dir);
    }
    System.exit(0);
  }

  /** Deletes {@code dir} and everything below it (a benchmark's temporary files). */
  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static void run(int rounds, Path source, Path dir) throws Exception {
    List<Photo> photos = photos(source);
    List<byte[]> jpegs = new ArrayList<>();
    List<EncodedImages.Image> labelled = new ArrayList<>();
    Path rec = dir.resolve("imagenet.rec");
    Path idx = dir.resolve("imagenet.idx");
    long bytes = 0;
    long pixels = 0;
    try (RecordIOWriter w = RecordIOWriter.create(rec, idx)) {
      for (int i = 0; i < IMAGES; i++) {
        Photo p = photos.get(i % photos.size());
        byte[] jpeg = imagenetLike(p.pixels, i);
        jpegs.add(jpeg);
        labelled.add(new EncodedImages.Image(jpeg, new float[] {p.label}));
        w.write(i, ImageRecord.of(i, p.label, jpeg).encode());
        bytes += jpeg.length;
        try (Mat m = decode(jpeg)) {
          pixels += (long) m.rows() * m.cols();
        }
      }
    }
    photos.forEach(p -> p.pixels.close());
    Path folder = dir.resolve("imagenet-folder");
    for (int i = 0; i < IMAGES; i++) { // torchvision's ImageFolder layout: <label>/<n>.jpg
      Path file = folder.resolve(labelName(labelled.get(i).labels()[0])).resolve(i + ".jpg");
      Files.createDirectories(file.getParent());
      Files.write(file, jpegs.get(i));
    }
    String set = dir.resolve("imagenet-shards").toString();
    ImageShardWriter.builder().dataShape(3, OUT, OUT)
        .writer(ShardWriter.builder().samplesPerFile(PER_FILE).build()).build().write(labelled, set);
    System.out.printf(Locale.ROOT, "%d JPEGs from %d photos of %s: mean %.1f KB, mean %.0f pixels (%.0f x %.0f at 4:3),"
        + " quality %d; .rec %d bytes%n", IMAGES, photos.size(), source, bytes / 1024.0 / IMAGES,
        (double) pixels / IMAGES, Math.sqrt(pixels / (double) IMAGES * 4 / 3), Math.sqrt(pixels / (double) IMAGES * 3 / 4),
        QUALITY, Files.size(rec));
    if (rounds == 0) {
      return; // the data set only
    }
    System.out.println("load average before: " + loadAverage());

    Consumer<ImageRecordProvider.Augment> augment = a -> a.randomResizedCrop(true).randMirror(true);
    Consumer<ImageRecordProvider.Normalize> normalize = n -> n.meanRgb(MEAN[0], MEAN[1], MEAN[2])
        .stdRgb(STD[0], STD[1], STD[2]);
    List<String> names = new ArrayList<>();
    List<Epoch> epochs = new ArrayList<>();
    List<long[]> cpu = new ArrayList<>();
    List<AutoCloseable> closers = new ArrayList<>();
    TorchvisionPeer peer = TorchvisionPeer.start(System.getProperty("python", "/usr/bin/python3"), folder, SEED, dir);
    for (int n = 2; n >= 1; n--) {
      ShardProvider shards = ShardProvider.builder(set).batchSize(BATCH).shuffle(true).seed(SEED)
          .shuffleWindow(PER_FILE).cacheFiles(Integer.getInteger("cacheFiles", 4)).augment("data", augment).normalize("data", normalize).readers(n)
          .build();
      closers.add(shards);
      variant(names, epochs, cpu, "shards " + n, () -> count(shards));
      ImageRecordProvider records = ImageRecordProvider.builder().pathImgrec(rec).pathImgidx(idx)
          .dataShape(3, OUT, OUT).batchSize(BATCH).shuffle(true).seed(SEED).augment(augment).normalize(normalize)
          .preprocessThreads(n).build();
      closers.add(records);
      variant(names, epochs, cpu, "rec " + n, () -> count(records));
      FullDecodeLoop loop = new FullDecodeLoop(jpegs, OUT, true, true, n, SEED, BATCH);
      closers.add(loop);
      variant(names, epochs, cpu, "loop " + n, loop::epoch);
    }
    if (peer != null) {
      closers.add(peer);
      System.out.println("torchvision peer: " + peer.versions());
      for (int w : new int[] {2, 0}) {
        timed(names, epochs, cpu, "torchvision " + w + "w", () -> peer.epoch(w, IMAGES));
      }
    }
    double[][] rate = rates(epochs, rounds, IMAGES);
    System.out.println("load average after: " + loadAverage());
    for (AutoCloseable c : closers) {
      c.close();
    }
    int k = epochs.size();
    System.out.println("images/s, median (min-max) over " + rounds + " rounds:");
    for (int v = 0; v < k; v++) {
      int vv = v;
      print(names.get(v), column(rate, r -> r[vv]));
    }
    System.out.println("process CPU ms per image, median (min-max) over the rounds:");
    for (int v = 0; v < k; v++) {
      long[] c = Arrays.copyOfRange(cpu.get(v), 2, 2 + rounds); // the two warm-up rounds dropped
      double[] ms = Arrays.stream(c).mapToDouble(ns -> ns / 1e6 / IMAGES).sorted().toArray();
      print(names.get(v), ms);
    }
    System.out.println("cores busy (the variant's CPU time over its wall time), median (min-max) over the rounds:");
    for (int v = 0; v < k; v++) {
      double[] busy = new double[rounds];
      for (int i = 0; i < rounds; i++) {
        busy[i] = cpu.get(v)[2 + i] / 1e9 / (IMAGES / rate[i][v]);
      }
      Arrays.sort(busy);
      print(names.get(v), busy);
    }
    // Indices: 0 shards 2, 1 rec 2, 2 loop 2, 3 shards 1, 4 rec 1, 5 loop 1.
    System.out.println("ratios within each round, median (min-max):");
    print("(a) shards 2 / rec 2", column(rate, r -> r[0] / r[1]));
    print("(a) shards 1 / rec 1", column(rate, r -> r[3] / r[4]));
    print("(b) shards 1 / loop 1", column(rate, r -> r[3] / r[5]));
    print("(b) rec 1 / loop 1", column(rate, r -> r[4] / r[5]));
    print("(c) shards 2 / shards 1", column(rate, r -> r[0] / r[3]));
    print("(c) rec 2 / rec 1", column(rate, r -> r[1] / r[4]));
    print("(c) loop 2 / loop 1", column(rate, r -> r[2] / r[5]));
    print("shards 2 / loop 2", column(rate, r -> r[0] / r[2]));
    if (peer == null) {
      return;
    }
    // 6 torchvision 2 workers, 7 torchvision 0 workers; per CPU-second = its CPU per image over ours.
    System.out.println("against torchvision, images per CPU-second (per core), within each round:");
    print("shards 1 / torchvision 0w", cpuRatio(cpu, rounds, 3, 7));
    print("shards 1 / torchvision 2w", cpuRatio(cpu, rounds, 3, 6));
    print("shards 2 / torchvision 2w", cpuRatio(cpu, rounds, 0, 6));
    print("rec 1 / torchvision 0w", cpuRatio(cpu, rounds, 4, 7));
    print("rec 2 / torchvision 2w", cpuRatio(cpu, rounds, 1, 6));
    print("loop 1 / torchvision 0w", cpuRatio(cpu, rounds, 5, 7));
    System.out.println("against torchvision, images/s (wall), within each round:");
    print("shards 1 / torchvision 0w", column(rate, r -> r[3] / r[7]));
    print("shards 2 / torchvision 2w", column(rate, r -> r[0] / r[6]));
    print("rec 1 / torchvision 0w", column(rate, r -> r[4] / r[7]));
    print("rec 2 / torchvision 2w", column(rate, r -> r[1] / r[6]));
    print("torchvision 2w / 0w", column(rate, r -> r[6] / r[7]));
  }

  /** Per round, variant {@code ours}'s images per CPU-second over {@code theirs}', sorted. */
  private static double[] cpuRatio(List<long[]> cpu, int rounds, int ours, int theirs) {
    double[] out = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      out[i] = (double) cpu.get(theirs)[2 + i] / cpu.get(ours)[2 + i]; // two warm-up rounds first
    }
    Arrays.sort(out);
    return out;
  }

  /** The folder name of a label: the integer when it is one, else the float. */
  private static String labelName(float label) {
    return label == Math.rint(label) ? Integer.toString((int) label) : Float.toString(label);
  }

  /** Adds a variant of ours whose epochs also record this process's CPU time, one entry per call. */
  private static void variant(List<String> names, List<Epoch> epochs, List<long[]> cpu, String name, Epoch epoch) {
    timed(names, epochs, cpu, name, () -> {
      long c = processCpu();
      epoch.run();
      return processCpu() - c;
    });
  }

  /** An epoch that returns the CPU time (ns) it cost, wherever that was spent. */
  private interface CpuEpoch {
    long run() throws Exception;
  }

  /** Adds a variant whose epochs record the CPU time they return, one entry per call. */
  private static void timed(List<String> names, List<Epoch> epochs, List<long[]> cpu, String name, CpuEpoch epoch) {
    long[] times = new long[64];
    int[] calls = {0};
    names.add(name);
    cpu.add(times);
    epochs.add(() -> times[calls[0]++] = epoch.run());
  }

  private static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  private static void count(Iterable<NamedBatch> provider) {
    long rows = 0;
    for (NamedBatch b : provider) {
      rows += b.countSamples();
    }
    if (rows != IMAGES) {
      throw new IllegalStateException("an epoch delivered " + rows + " images");
    }
  }

  private static Mat decode(byte[] jpeg) {
    try (BytePointer p = new BytePointer(jpeg); Mat wrapped = new Mat(1, jpeg.length, CV_8UC1, p)) {
      return imdecode(wrapped, IMREAD_COLOR);
    }
  }

  /** A source photo, decoded (BGR), with its record's label. */
  record Photo(Mat pixels, float label) {}

  static List<Photo> photos(Path rec) {
    List<Photo> out = new ArrayList<>();
    try (RecordIOFile file = RecordIOFile.open(rec)) {
      for (int i = 0; i < file.records(); i++) {
        ImageRecord r = ImageRecord.parse(file.read(i, null));
        byte[] b = r.image();
        Mat m = decode(b);
        if (m.empty()) {
          throw new IllegalStateException(rec + ": record " + i + " holds no image OpenCV decodes");
        }
        out.add(new Photo(m, r.label()));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalStateException(rec + " holds no records");
    }
    return out;
  }

  /**
   * Image {@code i}: a seeded window of {@code photo} at one of ImageNet's shapes, flipped or not,
   * with Gaussian noise (a camera's grain, which a photo resized down keeps and one resized up
   * loses), JPEG quality {@link #QUALITY}.
   */
  static byte[] imagenetLike(Mat photo, int i) {
    Random r = new Random(SEED * 1_000_003L + i);
    double u = r.nextDouble();
    int longSide = u < 0.70 ? 500 : u < 0.85 ? 600 + r.nextInt(601) : 160 + r.nextInt(291);
    double v = r.nextDouble();
    double aspect = v < 0.60 ? 4.0 / 3 : v < 0.85 ? 3.0 / 2 : 1.0;
    boolean portrait = r.nextDouble() < 0.2;
    int w = portrait ? (int) Math.round(longSide / aspect) : longSide;
    int h = portrait ? longSide : (int) Math.round(longSide / aspect);
    // The largest window of the photo at the target's aspect, scaled by 0.7-1 and placed at random.
    double scale = 0.7 + 0.3 * r.nextDouble();
    double fit = Math.min(photo.cols() / (double) w, photo.rows() / (double) h);
    int ww = Math.max(1, (int) (w * fit * scale));
    int wh = Math.max(1, (int) (h * fit * scale));
    int x = r.nextInt(photo.cols() - ww + 1);
    int y = r.nextInt(photo.rows() - wh + 1);
    try (Rect rect = new Rect(x, y, ww, wh); Mat window = photo.apply(rect); Mat sized = new Mat();
        Size size = new Size(w, h); Mat wide = new Mat(); Mat noise = new Mat(h, w, CV_16SC3); Mat noisy = new Mat()) {
      resize(window, sized, size, 0, 0, ww > w ? INTER_AREA : INTER_CUBIC);
      if (r.nextBoolean()) {
        flip(sized, sized, 1);
      }
      sized.convertTo(wide, CV_16SC3);
      setRNGSeed((int) (SEED * 7919 + i));
      try (Mat mean = new Mat(1, 3, org.bytedeco.opencv.global.opencv_core.CV_64FC1, new Scalar(0.0));
          Mat sd = new Mat(1, 3, org.bytedeco.opencv.global.opencv_core.CV_64FC1, new Scalar(Double.parseDouble(System.getProperty("noise", "8"))))) {
        randn(noise, mean, sd);
      }
      org.bytedeco.opencv.global.opencv_core.add(wide, noise, noisy);
      noisy.convertTo(sized, CV_8UC3);
      try (BytePointer out = new BytePointer(); IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY, QUALITY)) {
        if (!imencode(".jpg", sized, out, params)) {
          throw new IllegalStateException("OpenCV could not encode image " + i);
        }
        byte[] b = new byte[(int) out.limit()];
        out.get(b);
        return b;
      }
    }
  }
}
