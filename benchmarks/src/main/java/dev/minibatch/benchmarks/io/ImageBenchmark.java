package dev.minibatch.benchmarks.io;

import static org.bytedeco.opencv.global.opencv_core.CV_16SC3;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_core.add;
import static org.bytedeco.opencv.global.opencv_core.randn;
import static org.bytedeco.opencv.global.opencv_core.setNumThreads;
import static org.bytedeco.opencv.global.opencv_core.setRNGSeed;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_CUBIC;
import static org.bytedeco.opencv.global.opencv_imgproc.circle;
import static org.bytedeco.opencv.global.opencv_imgproc.rectangle;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.indexer.UByteIndexer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Point;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.bytedeco.opencv.opencv_core.Size;
import org.datavec.api.io.labels.ParentPathLabelGenerator;
import org.datavec.api.split.FileSplit;
import org.datavec.image.recordreader.ImageRecordReader;
import org.datavec.image.transform.FlipImageTransform;
import org.datavec.image.transform.ImageTransform;
import org.datavec.image.transform.PipelineImageTransform;
import org.datavec.image.transform.RandomCropTransform;
import org.deeplearning4j.datasets.datavec.RecordReaderDataSetIterator;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.broadcast.BroadcastDivOp;
import org.nd4j.linalg.api.ops.impl.broadcast.BroadcastSubOp;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Issue 12's image figures, in one run: one shuffled epoch of {@value #IMAGES} JPEGs of 256×256
 * (quality 90) → random crop 224, random horizontal mirror, per-channel mean/std, float32 NCHW,
 * batches of {@value #BATCH}; samples per second.
 *
 * <ul>
 *   <li>{@code minibatch} — {@link ImageRecordProvider} over a {@code .rec}/{@code .idx} of the
 *       images, {@code preprocessThreads} = {@code threads}.
 *   <li>{@code decodeOnly} — the limit: OpenCV {@code imdecode} of the same encoded bytes from
 *       memory, nothing else, on {@code threads} threads (the caller and {@code threads - 1} pool
 *       threads, each a contiguous share of the epoch).
 *   <li>{@code datavec} — DataVec's {@code ImageRecordReader} ({@code NativeImageLoader}, OpenCV
 *       too) + {@code RecordReaderDataSetIterator} over the same images as files in class folders:
 *       {@code RandomCropTransform} 224 and {@code FlipImageTransform(1)} with probability 0.5, then
 *       the same mean/std as two broadcast ops. DataVec decodes on the consumer's thread only.
 * </ul>
 *
 * <p>Besides samples/s, each benchmark reports {@code cpuUs}: the process's CPU time (all its
 * threads: readers, consumer, GC, JIT) in µs per second, so that {@code cpuUs / score} is the CPU
 * time per image. On a machine that other jobs share, throughput measures the share of the cores
 * the run got as much as the code, while CPU time per image compares the work each variant does.
 *
 * <p>The images are made at setup, deterministically (seeded colour blobs upsampled to gradients,
 * rectangles and circles for edges, Gaussian noise of σ 4–16 so that the entropy decoder has the
 * work a photo gives it), once per machine, under {@code java.io.tmpdir}/{@code
 * minibatch-imagebench-v1-IMAGES}; a marker file says the set is complete, and every forked JVM
 * reuses it. torchvision is not measured (no Python packages on the benchmark machine).
 *
 * <p>Run: {@code mvn -B -ntp -pl benchmarks -am -DskipTests package exec:exec -Dbench=ImageBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(ImageBenchmark.IMAGES)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
public class ImageBenchmark {
  /** Images in the set, a multiple of the batch so that every epoch is whole batches. */
  static final int IMAGES = 2048;
  static final int BATCH = 32;
  static final int SIDE = 256;
  static final int CROP = 224;
  static final int CLASSES = 10;
  static final long SEED = 12;
  /** ImageNet's RGB mean and std on the 0–255 scale. */
  static final float[] MEAN = {123.68f, 116.28f, 103.53f};
  static final float[] STD = {58.395f, 57.12f, 57.375f};

  /** The data set on disk: a record file with its index, and class folders of the same JPEGs. */
  @State(Scope.Benchmark)
  public static class Images {
    Path dir;
    Path rec;
    Path idx;
    Path folders;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      dir = Path.of(System.getProperty("java.io.tmpdir"), "minibatch-imagebench-v1-" + IMAGES);
      rec = dir.resolve("images.rec");
      idx = dir.resolve("images.idx");
      folders = dir.resolve("folders");
      Path done = dir.resolve("complete");
      if (Files.exists(done)) {
        return;
      }
      BenchFiles.deleteTree(dir);
      Files.createDirectories(folders);
      for (int c = 0; c < CLASSES; c++) {
        Files.createDirectories(folders.resolve("class" + c));
      }
      long bytes = 0;
      try (RecordIOWriter w = RecordIOWriter.create(rec, idx)) {
        for (int i = 0; i < IMAGES; i++) {
          byte[] jpeg = jpeg(i);
          bytes += jpeg.length;
          w.write(i, ImageRecord.of(i, i % CLASSES, jpeg).encode());
          Files.write(folders.resolve("class" + (i % CLASSES)).resolve(String.format("img%05d.jpg", i)), jpeg);
        }
      }
      Files.writeString(done, IMAGES + " JPEGs, " + bytes + " bytes, mean " + bytes / IMAGES + " bytes\n");
    }

    /** Image {@code i}: deterministic, photo-like in what it costs to decode. */
    static byte[] jpeg(int i) {
      Random r = new Random(SEED * 1_000_003L + i);
      int cells = 3 + r.nextInt(10);
      try (Mat small = new Mat(cells, cells, CV_8UC3);
          Mat image = new Mat();
          Mat wide = new Mat();
          Mat noise = new Mat(SIDE, SIDE, CV_16SC3);
          Mat noisy = new Mat();
          Size size = new Size(SIDE, SIDE)) {
        try (UByteIndexer ix = small.createIndexer()) {
          for (int y = 0; y < cells; y++) {
            for (int x = 0; x < cells; x++) {
              for (int c = 0; c < 3; c++) {
                ix.put(y, x, c, r.nextInt(256));
              }
            }
          }
        }
        resize(small, image, size, 0, 0, INTER_CUBIC);
        for (int k = 0, n = 2 + r.nextInt(6); k < n; k++) {
          try (Scalar colour = new Scalar(r.nextInt(256), r.nextInt(256), r.nextInt(256), 0);
              Point a = new Point(r.nextInt(SIDE), r.nextInt(SIDE));
              Point b = new Point(r.nextInt(SIDE), r.nextInt(SIDE))) {
            if (r.nextBoolean()) {
              rectangle(image, a, b, colour, r.nextInt(3) == 0 ? -1 : 1 + r.nextInt(6), 8, 0);
            } else {
              circle(image, a, 5 + r.nextInt(60), colour, r.nextInt(3) == 0 ? -1 : 1 + r.nextInt(6), 8, 0);
            }
          }
        }
        image.convertTo(wide, CV_16SC3);
        setRNGSeed((int) (SEED * 7919 + i));
        double sigma = 4 + r.nextInt(13);
        try (Mat mean = new Mat(1, 3, org.bytedeco.opencv.global.opencv_core.CV_64FC1, new Scalar(0.0));
            Mat sd = new Mat(1, 3, org.bytedeco.opencv.global.opencv_core.CV_64FC1, new Scalar(sigma))) {
          randn(noise, mean, sd);
        }
        add(wide, noise, noisy);
        noisy.convertTo(image, CV_8UC3);
        try (BytePointer out = new BytePointer();
            IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY, 90)) {
          if (!imencode(".jpg", image, out, params)) {
            throw new IllegalStateException("OpenCV could not encode image " + i);
          }
          byte[] b = new byte[(int) out.limit()];
          out.get(b);
          return b;
        }
      }
    }
  }

  /** The number of threads that decode: minibatch's preprocessThreads, or the decode loop's threads. */
  @State(Scope.Benchmark)
  public static class Threads {
    @Param({"1", "2"})
    int threads;
  }

  /** minibatch's provider over the record file. */
  @State(Scope.Benchmark)
  public static class Minibatch {
    ImageRecordProvider provider;

    @Setup(Level.Trial)
    public void setUp(Images images, Threads t) {
      provider = ImageRecordProvider.builder()
          .pathImgrec(images.rec).pathImgidx(images.idx)
          .dataShape(3, CROP, CROP)
          .batchSize(BATCH).shuffle(true).seed(SEED)
          .augment(a -> a.randCrop(true).randMirror(true))
          .normalize(n -> n.meanRgb(MEAN[0], MEAN[1], MEAN[2]).stdRgb(STD[0], STD[1], STD[2]))
          .preprocessThreads(t.threads)
          .build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      provider.close();
    }
  }

  /** The encoded images in native memory, a shuffled order, and the decode loop's helper threads. */
  @State(Scope.Benchmark)
  public static class Encoded {
    final List<BytePointer> jpegs = new ArrayList<>();
    final List<Mat> wrapped = new ArrayList<>();
    int[] order;
    ExecutorService pool;

    @Setup(Level.Trial)
    public void setUp(Images images, Threads t) throws IOException {
      setNumThreads(0);
      for (int i = 0; i < IMAGES; i++) {
        byte[] b = Files.readAllBytes(images.folders.resolve("class" + (i % CLASSES))
            .resolve(String.format("img%05d.jpg", i)));
        BytePointer p = new BytePointer(b.length);
        p.put(b);
        jpegs.add(p);
        wrapped.add(new Mat(1, b.length, CV_8UC1, p));
      }
      order = new int[IMAGES];
      Random r = new Random(SEED);
      for (int i = 0; i < IMAGES; i++) {
        order[i] = i;
      }
      for (int i = IMAGES - 1; i > 0; i--) {
        int j = r.nextInt(i + 1);
        int x = order[i];
        order[i] = order[j];
        order[j] = x;
      }
      pool = Executors.newFixedThreadPool(Math.max(1, t.threads - 1));
    }

    /** Decodes images {@code order[from..to)}; returns a checksum so nothing is dead code. */
    long decode(int from, int to) {
      long sum = 0;
      for (int k = from; k < to; k++) {
        try (Mat m = imdecode(wrapped.get(order[k]), IMREAD_COLOR)) {
          sum += m.cols();
        }
      }
      return sum;
    }

    /**
     * Decodes images {@code order[from..to)} and writes each one's centre 224x224 crop as float32
     * planes ({@code split}, then {@code convertTo} with a mean/std) into {@code out}, a ring of five
     * batches of 32 in native memory, as a batch loader must: the decode plus the unavoidable
     * output traffic, with no engine, no random draws and no record reading.
     */
    long decodeAndWrite(int from, int to, BytePointer out) {
      long sum = 0;
      long image = 3L * CROP * CROP * Float.BYTES;
      long plane = (long) CROP * CROP * Float.BYTES;
      int y0 = (SIDE - CROP) / 2;
      try (org.bytedeco.opencv.opencv_core.Rect rect = new org.bytedeco.opencv.opencv_core.Rect(y0, y0, CROP, CROP);
          org.bytedeco.opencv.opencv_core.MatVector planes = new org.bytedeco.opencv.opencv_core.MatVector()) {
        for (int k = from; k < to; k++) {
          try (Mat m = imdecode(wrapped.get(order[k]), IMREAD_COLOR); Mat roi = m.apply(rect)) {
            org.bytedeco.opencv.global.opencv_core.split(roi, planes);
            long base = (k % (5 * BATCH)) * image;
            for (int c = 0; c < 3; c++) {
              try (Mat src = planes.get(2 - c);
                  Mat dst = new Mat(CROP, CROP, org.bytedeco.opencv.global.opencv_core.CV_32FC1,
                      out.position(base + c * plane))) {
                src.convertTo(dst, org.bytedeco.opencv.global.opencv_core.CV_32F, 1 / STD[c], -MEAN[c] / STD[c]);
              }
            }
            sum += m.cols();
          }
        }
      }
      return sum;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      pool.shutdownNow();
      wrapped.forEach(Mat::close);
      jpegs.forEach(BytePointer::close);
    }
  }

  /** DataVec's reader over the class folders, with its transforms and a mean/std pre-processor. */
  @State(Scope.Benchmark)
  public static class DataVec {
    RecordReaderDataSetIterator iterator;
    INDArray mean;
    INDArray std;

    @Setup(Level.Trial)
    public void setUp(Images images) throws IOException {
      List<Pair<ImageTransform, Double>> steps = List.of(
          new Pair<>(new RandomCropTransform(SEED, CROP, CROP), 1.0),
          new Pair<>(new FlipImageTransform(1), 0.5));
      ImageTransform transform = new PipelineImageTransform(SEED, steps, false);
      ImageRecordReader reader = new ImageRecordReader(CROP, CROP, 3, new ParentPathLabelGenerator(), transform);
      reader.initialize(new FileSplit(images.folders.toFile(), new String[] {"jpg"}, new Random(SEED)));
      iterator = new RecordReaderDataSetIterator(reader, BATCH, 1, CLASSES);
      // NativeImageLoader gives BGR planes: the mean and std in that order.
      mean = Nd4j.createFromArray(MEAN[2], MEAN[1], MEAN[0]).castTo(DataType.FLOAT);
      std = Nd4j.createFromArray(STD[2], STD[1], STD[0]).castTo(DataType.FLOAT);
      iterator.setPreProcessor(ds -> {
        INDArray f = ds.getFeatures();
        Nd4j.getExecutioner().exec(new BroadcastSubOp(f, mean, f, 1));
        Nd4j.getExecutioner().exec(new BroadcastDivOp(f, std, f, 1));
      });
    }
  }

  /**
   * The process's CPU time, as a secondary rate: {@code cpuUs} µs of CPU per second of the
   * iteration (1 000 000 = one core busy). Its ratio to samples/s is the CPU time per image.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Cpu {
    private static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    /** µs of process CPU time spent in this iteration's invocations. */
    public long cpuUs;

    @Setup(Level.Iteration)
    public void reset() {
      cpuUs = 0;
    }

    static long now() {
      return OS.getProcessCpuTime();
    }

    void add(long startCpu) {
      cpuUs += (now() - startCpu) / 1000;
    }
  }

  /** minibatch: one shuffled epoch, decoded and augmented by {@code threads} reader threads. */
  @Benchmark
  public void minibatch(Minibatch m, Cpu cpu, Blackhole bh) {
    long c = Cpu.now();
    for (NamedBatch b : m.provider) {
      bh.consume(b);
    }
    cpu.add(c);
  }

  /** The limit: decode-only, same encoded bytes from memory, same number of threads. */
  @Benchmark
  public long decodeOnly(Encoded e, Threads t, Cpu cpu) throws Exception {
    long c = Cpu.now();
    int n = t.threads;
    if (n == 1) {
      long sum = e.decode(0, IMAGES);
      cpu.add(c);
      return sum;
    }
    List<Future<Long>> others = new ArrayList<>();
    for (int k = 1; k < n; k++) {
      int from = IMAGES * k / n;
      int to = IMAGES * (k + 1) / n;
      others.add(e.pool.submit(() -> e.decode(from, to)));
    }
    long sum = e.decode(0, IMAGES / n);
    for (Future<Long> f : others) {
      sum += f.get();
    }
    cpu.add(c);
    return sum;
  }
  /**
   * The limit with the output written: decode, centre-crop and write float32 planes into batch-sized
   * native buffers, on {@code threads} threads (each with its own ring of five batches).
   */
  @Benchmark
  public long decodeAndWrite(Encoded e, Threads t, Cpu cpu, Rings rings) throws Exception {
    long c = Cpu.now();
    int n = t.threads;
    List<Future<Long>> others = new ArrayList<>();
    for (int k = 1; k < n; k++) {
      int from = IMAGES * k / n;
      int to = IMAGES * (k + 1) / n;
      BytePointer ring = rings.rings.get(k);
      others.add(e.pool.submit(() -> e.decodeAndWrite(from, to, ring)));
    }
    long sum = e.decodeAndWrite(0, IMAGES / n, rings.rings.get(0));
    for (Future<Long> f : others) {
      sum += f.get();
    }
    cpu.add(c);
    return sum;
  }

  /** One ring of five float32 batches per thread, in native memory. */
  @State(Scope.Benchmark)
  public static class Rings {
    final List<BytePointer> rings = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp(Threads t) {
      for (int k = 0; k < t.threads; k++) {
        rings.add(new BytePointer(5L * BATCH * 3 * CROP * CROP * Float.BYTES));
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      rings.forEach(BytePointer::close);
    }
  }


  /** DataVec: one epoch through ImageRecordReader + RecordReaderDataSetIterator, on this thread. */
  @Benchmark
  public void datavec(DataVec d, Cpu cpu, Blackhole bh) {
    long c = Cpu.now();
    d.iterator.reset();
    while (d.iterator.hasNext()) {
      DataSet ds = d.iterator.next();
      bh.consume(ds.getFeatures());
    }
    cpu.add(c);
  }
}
