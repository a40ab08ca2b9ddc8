package dev.minibatch.shards.bench;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.shards.servers.LoopbackHdfs;
import dev.minibatch.shards.servers.LoopbackS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Paired rounds (docs/performance.md, "Shard sets"): the same shard set (30 000 MNIST-sized
 * samples, 784 float32 + 10 float32, files of 5 000: 6 files of 15.9 MB) on the local disk, on
 * HDFS (MiniDFSCluster, 128 MiB blocks) and on S3 (S3Proxy over an in-memory store, read through
 * S3A), both on 127.0.0.1, streamed with a cache of 3 files and a window of 5 000 so every epoch
 * reads most files again over its file system. Per round one epoch of each and Hadoop's own {@code
 * readFully} of every file from each server, in alternating order; the ratios to local, and of each
 * remote epoch to the time readFully takes for the bytes that epoch read, are taken within each round. Then 20 epochs of the local streaming provider
 * with the process's resident set size after each. Usage: {@code ShardSources [rounds] [warm-up rounds, default 3]}.
 */
public final class ShardSources {
  private static final int N = 30_000;
  private static final int BATCH = 128;
  private static final int EPOCHS = 4;

  private ShardSources() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int warmups = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    INDArray x = Nd4j.rand(DataType.FLOAT, N, 784);
    INDArray y = Nd4j.zeros(DataType.FLOAT, N, 10);
    for (int i = 0; i < N; i++) {
      y.putScalar(i, i % 10, 1f);
    }
    Path dir = Files.createTempDirectory("minibatch-shard-sources");
    try (LoopbackHdfs hdfs = LoopbackHdfs.start(); LoopbackS3 s3 = LoopbackS3.start()) {
      Configuration hdfsConf = hdfs.conf();
      hdfsConf.setLong("dfs.blocksize", 128L << 20);
      String local = dir.resolve("set").toString();
      String onHdfs = hdfs.root().resolve("/set").toString();
      String onS3 = s3.root().resolve("set").toString();
      write(x, y, local, new Configuration());
      write(x, y, onHdfs, hdfsConf);
      write(x, y, onS3, s3.conf());
      try (ShardProvider l = streaming(local, new Configuration());
          ShardProvider h = streaming(onHdfs, hdfsConf);
          ShardProvider s = streaming(onS3, s3.conf())) {
        byte[] buffer = new byte[32 << 20];
        // Whole rounds first, not counted: the JIT compiles Hadoop's, S3A's and the servers' code for
        // the first seconds, on the same two cores.
        for (int w = 0; w < Math.max(1, warmups); w++) {
          Epochs.samplesPerSecond(l);
          Epochs.samplesPerSecond(h);
          Epochs.samplesPerSecond(s);
          readFully(onHdfs, hdfsConf, buffer);
          readFully(onS3, s3.conf(), buffer);
        }
        double[] hr = new double[rounds];
        double[] sr = new double[rounds];
        double[] hf = new double[rounds];
        double[] sf = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          long hBytes = h.remoteBytes();
          long sBytes = s.remoteBytes();
          // Each epoch with the same file system's own readFully of every file of the set, in one round.
          // Each timed over EPOCHS epochs or passes: one epoch of this set takes 20-80 ms.
          double[] rates = Epochs.round(r, () -> Epochs.samplesPerSecond(l, EPOCHS),
              () -> Epochs.samplesPerSecond(h, EPOCHS), () -> Epochs.samplesPerSecond(s, EPOCHS),
              () -> readFully(onHdfs, hdfsConf, buffer), () -> readFully(onS3, s3.conf(), buffer));
          double a = rates[0];
          double b = rates[1];
          double c = rates[2];
          hr[r] = b / a;
          sr[r] = c / a;
          // The limit for an epoch that read epochBytes: the same bytes at readFully's rate, as samples/s.
          double hLimit = (double) N * EPOCHS / ((h.remoteBytes() - hBytes) / rates[3]);
          double sLimit = (double) N * EPOCHS / ((s.remoteBytes() - sBytes) / rates[4]);
          hf[r] = b / hLimit;
          sf[r] = c / sLimit;
          System.out.printf("round %d: local %.0f, hdfs %.0f, s3 %.0f samples/s; hdfs/local %.3f, s3/local %.3f;"
              + " readFully hdfs %.0f, s3 %.0f MB/s; epoch / readFully of its bytes: hdfs %.3f, s3 %.3f%n", r, a, b, c,
              hr[r], sr[r], rates[3] / 1e6, rates[4] / 1e6, hf[r], sf[r]);
        }
        System.out.printf("hdfs / local: %s%n", Epochs.summary(hr));
        System.out.printf("s3 / local: %s%n", Epochs.summary(sr));
        System.out.printf("hdfs epoch / readFully of the epoch's bytes: %s%n", Epochs.summary(hf));
        System.out.printf("s3 epoch / readFully of the epoch's bytes: %s%n", Epochs.summary(sf));
        System.out.printf("file loads: local %d, hdfs %d, s3 %d over %d epochs each%n", l.fileLoads(), h.fileLoads(),
            s.fileLoads(), rounds * EPOCHS + Math.max(1, warmups));
      }
      try (ShardProvider l = streaming(local, new Configuration())) {
        long[] rss = new long[20];
        for (int e = 0; e < 20; e++) {
          Epochs.samplesPerSecond(l);
          rss[e] = rssKiB();
        }
        System.out.printf("RSS after epochs 1..20 (MiB): %s%n", Arrays.toString(Arrays.stream(rss).map(k -> k / 1024)
            .toArray()));
        System.out.printf("RSS epoch 20 - epoch 2: %d MiB; cache bound 3 files x 15.9 MB%n", (rss[19] - rss[1]) / 1024);
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * Hadoop's own read of every file of the set at {@code where}: {@code open} and {@code readFully}
   * of each whole file into one reused buffer, as the file system's clients do it; bytes per second.
   */
  private static double readFully(String where, Configuration conf, byte[] buffer) {
    try {
      org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(where);
      org.apache.hadoop.fs.FileSystem fs = dir.getFileSystem(conf);
      long t = System.nanoTime();
      long bytes = 0;
      for (int pass = 0; pass < EPOCHS; pass++) {
        for (org.apache.hadoop.fs.FileStatus f : fs.listStatus(dir, p -> p.getName().endsWith(".parquet"))) {
          int n = Math.toIntExact(f.getLen());
          try (org.apache.hadoop.fs.FSDataInputStream in = fs.open(f.getPath())) {
            in.readFully(0, buffer, 0, n);
          }
          bytes += n;
        }
      }
      return bytes / ((System.nanoTime() - t) / 1e9);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void write(INDArray x, INDArray y, String where, Configuration conf) {
    try (ArrayDataProvider source = ArrayDataProvider.builder().data(x).label(y).batchSize(1024).build()) {
      long t = System.nanoTime();
      ShardWriter.builder().samplesPerFile(5_000).configuration(conf).build().write(source, where);
      System.out.printf("write %s: %.2f s%n", where, (System.nanoTime() - t) / 1e9);
    }
  }

  private static ShardProvider streaming(String where, Configuration conf) {
    return ShardProvider.builder(where).configuration(conf).batchSize(BATCH).shuffle(true).seed(1)
        .shuffleWindow(5_000).cacheFiles(3).build();
  }

  private static long rssKiB() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }
}
