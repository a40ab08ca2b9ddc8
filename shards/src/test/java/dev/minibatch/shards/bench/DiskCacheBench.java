package dev.minibatch.shards.bench;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.shards.servers.LoopbackHdfs;
import dev.minibatch.shards.servers.LoopbackS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Iterator;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The disk cache's figures (docs/performance.md, "The disk cache"): the shard set of {@link
 * ShardSources} (30 000 MNIST-sized samples, 6 files of 15.9 MB) on HDFS (MiniDFSCluster) and on S3
 * (S3Proxy), both on 127.0.0.1, streamed with a window of one file and a memory cache of 3 files, so
 * that every epoch loads most files again. Per round and store, in a new cache directory:
 *
 * <ul>
 *   <li>cold: a provider with the disk cache, from {@code build()} to its first batch (the first file
 *       fetched, checked and stored), then two epochs: their remote bytes and samples/s;
 *   <li>warm: a new provider on the same directory (a restarted trainer): to its first batch, and an
 *       epoch's remote bytes and samples/s;
 *   <li>without: a provider without the disk cache, to its first batch and two epochs, the same way.
 * </ul>
 *
 * Usage: {@code DiskCacheBench [rounds]}.
 */
public final class DiskCacheBench {
  private static final int N = 30_000;

  private DiskCacheBench() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    INDArray x = Nd4j.rand(DataType.FLOAT, N, 784);
    INDArray y = Nd4j.zeros(DataType.FLOAT, N, 10);
    for (int i = 0; i < N; i++) {
      y.putScalar(i, i % 10, 1f);
    }
    Path dir = Files.createTempDirectory("minibatch-disk-cache-bench");
    try (LoopbackHdfs hdfs = LoopbackHdfs.start(); LoopbackS3 s3 = LoopbackS3.start()) {
      Configuration hdfsConf = hdfs.conf();
      hdfsConf.setLong("dfs.blocksize", 128L << 20);
      String onHdfs = hdfs.root().resolve("/set").toString();
      String onS3 = s3.root().resolve("set").toString();
      long bytes = write(x, y, onHdfs, hdfsConf);
      write(x, y, onS3, s3.conf());
      System.out.printf("the set: %d samples, %d bytes in 6 files%n", N, bytes);
      double[][] firstRatio = new double[2][rounds];
      double[][] epochRatio = new double[2][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int s = 0; s < 2; s++) {
          int store = r % 2 == 0 ? s : 1 - s;
          String set = store == 0 ? onHdfs : onS3;
          Configuration conf = store == 0 ? hdfsConf : s3.conf();
          Path cache = dir.resolve("cache-" + r + "-" + store);
          Run cold = run(set, conf, cache, 2);
          Run warm = run(set, conf, cache, 1);
          Run without = run(set, conf, null, 2);
          firstRatio[store][r] = cold.firstBatch / warm.firstBatch;
          epochRatio[store][r] = cold.rate[1] / without.rate[1];
          if (cold.remote[0] != bytes || cold.remote[1] != 0 || warm.remote[0] != 0) {
            throw new IllegalStateException("the disk cache fetched other than the set once: " + cold.remote[0] + ", "
                + cold.remote[1] + ", " + warm.remote[0] + " bytes; the set is " + bytes);
          }
          System.out.printf("round %d %s: first batch cold %.3f s, warm %.3f s, without %.3f s; remote bytes cold %d + %d,"
              + " warm %d, without %d + %d; samples/s cold %.0f then %.0f, warm %.0f, without %.0f then %.0f%n", r,
              store == 0 ? "hdfs" : "s3", cold.firstBatch, warm.firstBatch, without.firstBatch, cold.remote[0],
              cold.remote[1], warm.remote[0], without.remote[0], without.remote[1], cold.rate[0], cold.rate[1],
              warm.rate[0], without.rate[0], without.rate[1]);
        }
      }
      for (int s = 0; s < 2; s++) {
        String name = s == 0 ? "hdfs" : "s3";
        System.out.printf("%s: first batch cold / warm %s; second epoch with / without the disk cache %s%n", name,
            Epochs.summary(firstRatio[s]), Epochs.summary(epochRatio[s]));
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** Seconds from {@code build()} to the first batch, and per epoch the remote bytes and samples/s. */
  private record Run(double firstBatch, long[] remote, double[] rate) {}

  private static Run run(String set, Configuration conf, @org.jspecify.annotations.Nullable Path cache, int epochs) {
    long t = System.nanoTime();
    ShardProvider.Builder b = ShardProvider.builder(set).configuration(conf).batchSize(128).shuffle(true).seed(1)
        .shuffleWindow(5_000).cacheFiles(3);
    if (cache != null) {
      b.diskCache(cache, 1L << 40);
    }
    try (ShardProvider p = b.build()) {
      // Epoch 0 from build(): its first batch timed, its rate over the whole of it.
      Iterator<NamedBatch> first = p.iterator();
      first.next();
      double firstBatch = (System.nanoTime() - t) / 1e9;
      while (first.hasNext()) {
        first.next();
      }
      long[] remote = new long[epochs];
      double[] rate = new double[epochs];
      remote[0] = p.remoteBytes();
      rate[0] = N / ((System.nanoTime() - t) / 1e9);
      for (int e = 1; e < epochs; e++) {
        long before = p.remoteBytes();
        rate[e] = Epochs.samplesPerSecond(p);
        remote[e] = p.remoteBytes() - before;
      }
      return new Run(firstBatch, remote, rate);
    }
  }

  /** Writes the set and returns its files' bytes, as the file system lists them. */
  private static long write(INDArray x, INDArray y, String where, Configuration conf) throws IOException {
    try (ArrayDataProvider source = ArrayDataProvider.builder().data(x).label(y).batchSize(1024).build()) {
      ShardWriter.builder().samplesPerFile(5_000).configuration(conf).build().write(source, where);
    }
    org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(where);
    try (org.apache.hadoop.fs.FileSystem fs = org.apache.hadoop.fs.FileSystem.newInstance(root.toUri(), conf)) {
      long n = 0;
      for (org.apache.hadoop.fs.FileStatus f : fs.listStatus(root)) {
        if (f.getPath().getName().endsWith(".parquet")) {
          n += f.getLen();
        }
      }
      return n;
    }
  }
}
