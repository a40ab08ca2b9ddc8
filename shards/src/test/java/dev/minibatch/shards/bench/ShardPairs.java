package dev.minibatch.shards.bench;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Paired rounds (docs/performance.md, "Shard sets"): 60 000 MNIST-sized samples (784 float32 and a
 * 10-class one-hot float32 label, 3 176 bytes), batches of 128, shuffled with a seed. Per round, one
 * epoch of each, back to back, in an order that alternates: {@code ArrayDataProvider} over the
 * arrays in memory (the reference), {@code ShardProvider} over the same samples written as a local
 * shard set of 6 files with every file cached (warm), and with a cache of 4 files (a window of
 * 10 000 samples, one file, plus 2 read ahead), so every epoch reads, checks and decodes most
 * files again (streaming). The ratio
 * is taken within each round; the median and range are printed. Also the time from {@code
 * build()} to the first batch of a shard provider. With {@code image}: 4 000 samples of 3 x 224 x 224
 * uint8 and an int32 label (150 532 bytes), files of 500 (8 files), the streaming cache 4 files and
 * window 500. Usage: {@code ShardPairs [rounds] [mnist|image]}.
 *
 * <p>The limit of the streaming path, in the same rounds: the raw read of the set's {@code .parquet}
 * files, each read whole with a {@code FileChannel} into one reused direct buffer the size of the
 * largest file (what a reader that holds a file in memory must do at least), as samples per second:
 * the files' samples over the time. Streaming's ratio to it is printed beside its ratio to the array
 * provider, and the array provider's own ratio to it (streaming's ceiling, were reading free: its
 * batches are a gather of the same rows).
 */
public final class ShardPairs {
  private static final int BATCH = 128;

  private ShardPairs() {}

  public static void main(String[] args) throws IOException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    boolean image = args.length > 1 && args[1].equals("image");
    final int n = image ? 4_000 : 60_000;
    final int perFile = image ? 500 : 10_000;
    final int window = image ? 500 : 10_000;
    INDArray[] xy = samples(image, n);
    INDArray x = xy[0];
    INDArray y = xy[1];
    System.out.printf("%s: %d samples of %s %s%n", image ? "image" : "mnist", n, Arrays.toString(x.shape()), x.dataType());
    Path dir = Files.createTempDirectory("minibatch-shard-pairs");
    String set = dir.resolve("set").toString();
    try (ArrayDataProvider source = ArrayDataProvider.builder().data(x).label(y).batchSize(1024).build()) {
      long t = System.nanoTime();
      ShardWriter.builder().samplesPerFile(perFile).build().write(source, set);
      System.out.printf("write: %.2f s, %.0f samples/s%n", (System.nanoTime() - t) / 1e9, n / ((System.nanoTime() - t) / 1e9));
    }
    long t0 = System.nanoTime();
    try (ShardProvider first = ShardProvider.builder(set).batchSize(BATCH).shuffle(true).seed(1).build()) {
      first.iterator().next();
      System.out.printf("build() to first batch: %.3f s%n", (System.nanoTime() - t0) / 1e9);
    }
    try (ArrayDataProvider array = ArrayDataProvider.builder().data(x).label(y).batchSize(BATCH).shuffle(true).seed(1)
            .build();
        ShardProvider warm = ShardProvider.builder(set).batchSize(BATCH).shuffle(true).seed(1).build();
        ShardProvider streaming = ShardProvider.builder(set).batchSize(BATCH).shuffle(true).seed(1)
            .shuffleWindow(window).cacheFiles(4).build()) {
      RawRead raw = new RawRead(Path.of(set), n);
      double[] warmRatio = new double[rounds];
      double[] streamRatio = new double[rounds];
      double[] rawRatio = new double[rounds];
      double[] arrayRaw = new double[rounds];
      Epochs.samplesPerSecond(array);
      Epochs.samplesPerSecond(warm);
      Epochs.samplesPerSecond(streaming);
      raw.samplesPerSecond();
      for (int r = 0; r < rounds; r++) {
        double[] rates = Epochs.round(r, () -> Epochs.samplesPerSecond(array),
            () -> Epochs.samplesPerSecond(warm), () -> Epochs.samplesPerSecond(streaming), raw::samplesPerSecond);
        double a = rates[0];
        double w = rates[1];
        double s = rates[2];
        double f = rates[3];
        warmRatio[r] = w / a;
        streamRatio[r] = s / a;
        rawRatio[r] = s / f;
        arrayRaw[r] = a / f;
        System.out.printf("round %d: array %.0f, shards warm %.0f, shards streaming %.0f, raw read %.0f samples/s;"
            + " warm/array %.3f, streaming/array %.3f, streaming/raw %.3f%n", r, a, w, s, f, warmRatio[r],
            streamRatio[r], rawRatio[r]);
      }
      System.out.printf("shards warm / array: %s%n", Epochs.summary(warmRatio));
      System.out.printf("shards streaming / array: %s; file loads %d over %d epochs%n",
          Epochs.summary(streamRatio), streaming.fileLoads(), rounds + 1);
      System.out.printf("shards streaming / raw read of the files: %s (%d files, %d bytes)%n",
          Epochs.summary(rawRatio), raw.files.size(), raw.bytes);
      // What streaming would reach if reading cost nothing: its batches are the array provider's gather.
      System.out.printf("array / raw read of the files: %s%n", Epochs.summary(arrayRaw));
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * The raw read of a set's files: each {@code .parquet} file read whole, in name order, with a
   * {@code FileChannel} into one reused direct buffer; one "epoch" reads every file once.
   */
  static final class RawRead {
    final java.util.List<Path> files;
    final long bytes;
    private final int samples;
    private final java.nio.ByteBuffer buffer;

    RawRead(Path set, int samples) throws IOException {
      try (Stream<Path> all = Files.list(set)) {
        this.files = all.filter(p -> p.toString().endsWith(".parquet")).sorted().toList();
      }
      long total = 0;
      long largest = 0;
      for (Path p : files) {
        total += Files.size(p);
        largest = Math.max(largest, Files.size(p));
      }
      this.bytes = total;
      this.samples = samples;
      this.buffer = java.nio.ByteBuffer.allocateDirect(Math.toIntExact(largest));
    }

    /** Every file read once: the set's samples over the time. */
    double samplesPerSecond() {
      long t = System.nanoTime();
      long read = 0;
      for (Path p : files) {
        buffer.clear();
        try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(p)) {
          int r;
          while ((r = in.read(buffer)) > 0) {
            read += r;
          }
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
      if (read != bytes) {
        throw new IllegalStateException("read " + read + " bytes of " + bytes);
      }
      return samples / ((System.nanoTime() - t) / 1e9);
    }
  }

  /**
   * The benchmarks' {@code n} samples, data then label: 3 x 224 x 224 uint8 images with an int32
   * label of 1000 classes, or MNIST-sized 784 float32 with a one-hot float32 label of 10.
   */
  static INDArray[] samples(boolean image, int n) {
    if (image) {
      return new INDArray[] {Nd4j.rand(DataType.FLOAT, n, 3, 224, 224).muli(255).castTo(DataType.UINT8),
          Nd4j.createFromArray(java.util.stream.IntStream.range(0, n).map(i -> i % 1000).toArray())};
    }
    INDArray y = Nd4j.zeros(DataType.FLOAT, n, 10);
    for (int i = 0; i < n; i++) {
      y.putScalar(i, i % 10, 1f);
    }
    return new INDArray[] {Nd4j.rand(DataType.FLOAT, n, 784), y};
  }
}
