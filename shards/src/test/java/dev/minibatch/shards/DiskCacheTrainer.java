package dev.minibatch.shards;

import dev.minibatch.runtime.NamedBatch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * A trainer process of {@link DiskCacheProcessesTest}: trainer {@code p} of {@code k} reads two
 * epochs of a shard set through a disk cache, with two reader threads besides its read-ahead (so
 * that several threads of each process fetch at once). Usage: {@code SET CACHE MAX_BYTES K P [KEY=VALUE…]}
 * (the Hadoop settings). It prints {@code READY} once built, waits for the line {@code GO} on its
 * standard input (so that the trainers start their epochs together), then per epoch {@code EPOCH e REMOTE bytes IDS
 * id,id,…} (the samples of its batches, by the ids their rows hold) and last {@code HADOOP bytes},
 * what Hadoop's statistics counted read through {@code hdfs} in this JVM, the index included.
 */
public final class DiskCacheTrainer {
  private DiskCacheTrainer() {}

  @SuppressWarnings("deprecation") // Hadoop's per-scheme statistics, as the parent test reads them too
  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    for (int i = 5; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      conf.set(kv[0], kv[1]);
    }
    try (ShardProvider trainer = ShardProvider.builder(args[0]).configuration(conf).batchSize(50).shuffle(true)
        .seed(5).shuffleWindow(100).readers(2).shard(Integer.parseInt(args[3]), Integer.parseInt(args[4]))
        .diskCache(Path.of(args[1]), Long.parseLong(args[2])).build()) {
      System.out.println("READY");
      System.out.flush();
      // Blocks until the parent says go (it ends the test's wait on the trainers if it never does).
      String go = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
          java.nio.charset.StandardCharsets.UTF_8)).readLine();
      if (!"GO".equals(go)) {
        throw new IllegalStateException("expected GO on standard input, got " + go);
      }
      for (int e = 0; e < 2; e++) {
        long before = trainer.remoteBytes();
        List<Integer> ids = new ArrayList<>();
        for (NamedBatch b : trainer) {
          for (int r = 0; r < b.countSamples(); r++) {
            int id = (int) b.get("x").getFloat(r, 0);
            if (b.get("x").getFloat(r, 1) != id || b.get("y").getInt(r) != id % 7) {
              throw new IllegalStateException("row " + r + " of sample " + id + " holds other values");
            }
            ids.add(id);
          }
        }
        System.out.println("EPOCH " + e + " REMOTE " + (trainer.remoteBytes() - before) + " IDS "
            + ids.stream().map(String::valueOf).collect(Collectors.joining(",")));
      }
    }
    long hdfs = 0;
    for (FileSystem.Statistics s : FileSystem.getAllStatistics()) {
      if ("hdfs".equals(s.getScheme())) {
        hdfs += s.getBytesRead();
      }
    }
    System.out.println("HADOOP " + hdfs);
  }
}
