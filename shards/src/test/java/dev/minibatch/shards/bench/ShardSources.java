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
 * reads most files again over its file system. Per round one epoch of each, in alternating order;
 * the ratios to local are taken within each round. Then 20 epochs of the local streaming provider
 * with the process's resident set size after each. Usage: {@code ShardSources [rounds]}.
 */
public final class ShardSources {
  private static final int N = 30_000;
  private static final int BATCH = 128;

  private ShardSources() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
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
        Epochs.samplesPerSecond(l);
        Epochs.samplesPerSecond(h);
        Epochs.samplesPerSecond(s);
        double[] hr = new double[rounds];
        double[] sr = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          double[] rates = Epochs.round(r, l, h, s);
          double a = rates[0];
          double b = rates[1];
          double c = rates[2];
          hr[r] = b / a;
          sr[r] = c / a;
          System.out.printf("round %d: local %.0f, hdfs %.0f, s3 %.0f samples/s; hdfs/local %.3f, s3/local %.3f%n", r, a,
              b, c, hr[r], sr[r]);
        }
        System.out.printf("hdfs / local: %s%n", Epochs.summary(hr));
        System.out.printf("s3 / local: %s%n", Epochs.summary(sr));
        System.out.printf("file loads: local %d, hdfs %d, s3 %d over %d epochs each%n", l.fileLoads(), h.fileLoads(),
            s.fileLoads(), rounds + 1);
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
