package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.servers.LoopbackHdfs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two trainer processes of one node share one disk cache: two JVMs ({@link DiskCacheTrainer},
 * trainers 0 and 1 of 2, elastic, so each reads every file of each window) start their first epoch
 * together against a real HDFS (MiniDFSCluster in this JVM) holding 1 000 samples in 10 files.
 * Counted three ways, each file is fetched once in all: by the providers ({@code remoteBytes}), by
 * Hadoop's statistics in each process, and by the data node's own metrics; the second epoch reads
 * nothing from HDFS. The expected bytes are the files' lengths as HDFS lists them.
 */
class DiskCacheProcessesTest {
  @TempDir Path dir;

  @Test
  void twoTrainerProcessesFetchEachFileOnce() throws Exception {
    try (LoopbackHdfs hdfs = LoopbackHdfs.start()) {
      String set = hdfs.root().resolve("/set").toString();
      try (ArrayDataProvider source = IdSamples.provider(0, 1000)) {
        ShardWriter.builder().samplesPerFile(100).configuration(hdfs.conf()).build().write(source, set);
      }
      long files = 0;
      long index;
      try (FileSystem fs = FileSystem.newInstance(hdfs.root(), hdfs.conf())) {
        for (int f = 0; f < 10; f++) {
          files += fs.getFileStatus(new org.apache.hadoop.fs.Path(set + String.format("/part-%05d.parquet", f))).getLen();
        }
        index = fs.getFileStatus(new org.apache.hadoop.fs.Path(set + "/shards.index")).getLen();
      }
      long servedBefore = hdfs.bytesServed();
      Path cache = dir.resolve("cache");
      List<Process> trainers = new ArrayList<>();
      List<CompletableFuture<List<String>>> outputs = new ArrayList<>();
      CountDownLatch ready = new CountDownLatch(2);
      try {
        for (int p = 0; p < 2; p++) {
          Process t = start(set, cache, p, hdfs.conf());
          trainers.add(t);
          outputs.add(CompletableFuture.supplyAsync(() -> lines(t, ready)));
        }
        // Both built (ND4J and Hadoop loaded): their first epochs start together and race for each file.
        assertTrue(ready.await(180, TimeUnit.SECONDS), "the trainers did not start");
        for (Process t : trainers) {
          t.getOutputStream().write("GO\n".getBytes(StandardCharsets.UTF_8));
          t.getOutputStream().flush();
        }
        for (Process t : trainers) {
          assertTrue(t.waitFor(180, TimeUnit.SECONDS), "a trainer did not finish");
        }
      } finally {
        trainers.forEach(Process::destroyForcibly);
      }
      long remote0 = 0;
      long remote1 = 0;
      long hadoop = 0;
      int[][] seen = new int[2][1000];
      for (int p = 0; p < 2; p++) {
        List<String> out = outputs.get(p).get(10, TimeUnit.SECONDS);
        assertEquals(0, trainers.get(p).exitValue(), "trainer " + p + ": " + out);
        for (String line : out) {
          String[] w = line.split(" ");
          if (w[0].equals("EPOCH")) {
            int e = Integer.parseInt(w[1]);
            long remote = Long.parseLong(w[3]);
            if (e == 0) {
              remote0 += remote;
            } else {
              remote1 += remote;
            }
            for (String id : w[5].split(",")) {
              seen[e][Integer.parseInt(id)]++;
            }
          } else if (w[0].equals("HADOOP")) {
            hadoop += Long.parseLong(w[1]);
          }
        }
      }
      int[] once = new int[1000];
      Arrays.fill(once, 1);
      for (int e = 0; e < 2; e++) {
        assertTrue(Arrays.equals(once, seen[e]), "epoch " + e + ": every sample once between the two trainers");
      }
      assertEquals(files, remote0, "the first epoch: each file fetched once by one of the two processes");
      assertEquals(0, remote1, "the second epoch: no remote byte");
      assertEquals(files + 2 * index, hadoop, "Hadoop's statistics in the two processes: the files once, the index twice");
      // The data node counts a read when it ends: wait until it has counted what the clients have.
      long served = hdfs.bytesServed() - servedBefore;
      for (long end = System.nanoTime() + 10_000_000_000L; served < files + 2 * index && System.nanoTime() < end; ) {
        Thread.sleep(20);
        served = hdfs.bytesServed() - servedBefore;
      }
      assertEquals(files + 2 * index, served, "the data node's metrics: the files once, the index twice");
      try (Stream<Path> copies = Files.list(cache)) {
        assertEquals(10, copies.filter(Files::isRegularFile).count());
      }
    }
  }

  private static Process start(String set, Path cache, int p, Configuration conf) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-cp", System.getProperty("java.class.path"), DiskCacheTrainer.class.getName(), set,
        cache.toString(), Long.toString(1L << 40), "2", Integer.toString(p)));
    for (String key : List.of("dfs.client.context", "dfs.client.socketcache.capacity")) {
      command.add(key + "=" + conf.get(key));
    }
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  /** The process's output lines, counting {@code ready} down when it prints READY. */
  private static List<String> lines(Process t, CountDownLatch ready) {
    List<String> lines = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(t.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        lines.add(line);
        if (line.equals("READY")) {
          ready.countDown();
        }
      }
    } catch (java.io.IOException e) {
      lines.add("(output lost: " + e + ")");
    } finally {
      if (!lines.contains("READY")) {
        ready.countDown(); // ended before it was built: its output says why
      }
    }
    return lines;
  }
}
