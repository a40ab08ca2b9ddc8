package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.servers.FaultyProxy;
import dev.minibatch.shards.servers.LoopbackS3;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Retries against a real S3 server (S3Proxy through S3A) behind a proxy that answers chosen requests
 * with a 503 SlowDown or a 403, drops their connection or cuts the object short
 * ({@link FaultyProxy}). A set of 500 samples in 8 files of 64 (the last 52): sample {@code i} holds
 * {@code i} in each of its 16 floats, so every row says which sample it is. The proxy counts the
 * requests, so each test knows how many attempts were made, S3A's own included.
 */
class RemoteRetriesTest {
  private static final int N = 500;
  private static LoopbackS3 s3;
  private static String set;

  @BeforeAll
  static void write() throws Exception {
    s3 = LoopbackS3.start();
    set = s3.root().resolve("digits/").toString();
    float[][] data = new float[N][16];
    for (int i = 0; i < N; i++) {
      java.util.Arrays.fill(data[i], i);
    }
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("x", Nd4j.create(data)).batchSize(100).build()) {
      assertEquals(8, ShardWriter.builder().samplesPerFile(64).configuration(s3.conf()).build().write(source, set).files());
    }
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
  }

  private static FaultyProxy proxy(BiFunction<String, Integer, FaultyProxy.Fault> rule) throws Exception {
    return new FaultyProxy(s3.ports().iterator().next(), rule);
  }

  private static Configuration through(FaultyProxy proxy) {
    Configuration conf = s3.conf();
    conf.set("fs.s3a.endpoint", "http://127.0.0.1:" + proxy.port());
    return conf;
  }

  /** One epoch in order, without read-ahead (so each file is asked for by one load); every sample checked. */
  private static void readAll(Configuration conf, int attempts, Duration first) {
    try (ShardProvider p = ShardProvider.builder(set).configuration(conf).retries(attempts, first).readAhead(0)
        .batchSize(50).build()) {
      Set<Integer> seen = new HashSet<>();
      for (NamedBatch b : p) {
        INDArray x = b.get("x");
        for (int r = 0; r < b.rows(); r++) {
          int id = (int) x.getFloat(r, 0);
          assertEquals(id, x.getFloat(r, 15), 0f);
          assertTrue(seen.add(id), "sample " + id + " twice");
        }
      }
      assertEquals(N, seen.size());
    }
  }

  private static Throwable failure(Configuration conf, int attempts, Duration first) {
    return assertThrows(RuntimeException.class, () -> readAll(conf, attempts, first));
  }

  /**
   * One load of {@code file} through a store with these retries, as the provider's cache makes it (a
   * provider may load a failed file again: its batch's samples are read once more to tell which are bad).
   */
  private static Throwable load(Configuration conf, String file, int attempts, Duration first) {
    try (ShardStore store = ShardStore.open(set, conf, new Retries(attempts, first))) {
      ShardIndex.Entry entry = ShardIndex.read(store).files().stream().filter(f -> f.name().equals(file)).findFirst()
          .orElseThrow();
      return assertThrows(RuntimeException.class, () -> store.readFully(file, entry.bytes()));
    }
  }

  private static UncheckedIOException io(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof UncheckedIOException u) {
        return u;
      }
    }
    throw new AssertionError("no UncheckedIOException in the cause chain of " + t, t);
  }

  private static boolean chainMentions(Throwable t, String text) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (String.valueOf(c.getMessage()).contains(text)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void a503ADroppedConnectionAndACutResponseAreRetriedAndTheEpochIsWhole() throws Exception {
    // part-00002: throttled, then dropped, then cut after 1 000 bytes (headers and part of the body), then served.
    List<FaultyProxy.Fault> faults = List.of(FaultyProxy.SLOW_DOWN, FaultyProxy.DROP, new FaultyProxy.Cut(1_000));
    try (FaultyProxy proxy = proxy((request, nth) -> request.startsWith("GET ") && request.endsWith("part-00002.parquet")
        && nth < faults.size() ? faults.get(nth) : FaultyProxy.PASS)) {
      long t0 = System.nanoTime();
      readAll(through(proxy), 4, Duration.ofMillis(40));
      long took = System.nanoTime() - t0;
      // Four requests of that file: three failed, one served; one of every other file.
      assertEquals(4, proxy.seen("GET", "part-00002.parquet").size(), proxy.seen().toString());
      for (String other : List.of("part-00000", "part-00001", "part-00003", "part-00007")) {
        assertEquals(1, proxy.seen("GET", other + ".parquet").size(), proxy.seen().toString());
      }
      // The waits: at least half of 40 + 80 + 160 ms.
      assertTrue(took >= 140_000_000L, took + " ns");
    }
  }

  @Test
  void a403IsNotRetriedAndTheErrorNamesTheUri() throws Exception {
    try (FaultyProxy proxy = proxy((request, nth) -> request.startsWith("GET ") && request.endsWith("part-00003.parquet")
        ? FaultyProxy.DENIED : FaultyProxy.PASS)) {
      UncheckedIOException io = io(load(through(proxy), "part-00003.parquet", 5, Duration.ofMillis(10)));
      assertEquals("cannot read " + set + "part-00003.parquet: ", io.getMessage().substring(0, ("cannot read " + set
          + "part-00003.parquet: ").length()), io.getMessage());
      assertTrue(chainMentions(io, "403"), "the cause names the status: " + io);
      assertEquals(1, proxy.seen("GET", "part-00003.parquet").size(), proxy.seen().toString());
      // Through a provider, the same error ends the epoch.
      UncheckedIOException fromProvider = io(failure(through(proxy), 5, Duration.ofMillis(10)));
      assertTrue(fromProvider.getMessage().startsWith("cannot read " + set + "part-00003.parquet: "),
          fromProvider.getMessage());
    }
  }

  @Test
  void a503EveryTimeFailsAfterTheLastAttemptNamingTheUriTheAttemptsAndTheCause() throws Exception {
    try (FaultyProxy proxy = proxy((request, nth) -> request.startsWith("GET ") && request.endsWith("part-00001.parquet")
        ? FaultyProxy.SLOW_DOWN : FaultyProxy.PASS)) {
      UncheckedIOException io = io(load(through(proxy), "part-00001.parquet", 3, Duration.ofMillis(10)));
      assertTrue(io.getMessage().startsWith("cannot read " + set + "part-00001.parquet (3 attempts in "), io.getMessage());
      assertTrue(chainMentions(io, "503"), "the cause names the status: " + io);
      // Three requests: S3A's own retries (20 for a 503 by default) are off under ours.
      assertEquals(3, proxy.seen("GET", "part-00001.parquet").size(), proxy.seen().toString());
    }
  }

  @Test
  void s3aRetrySettingsTheCallerWroteStay() throws Exception {
    try (FaultyProxy proxy = proxy((request, nth) -> request.startsWith("GET ") && request.endsWith("part-00001.parquet")
        ? FaultyProxy.SLOW_DOWN : FaultyProxy.PASS)) {
      Configuration conf = through(proxy);
      conf.setInt("fs.s3a.retry.throttle.limit", 2);
      conf.set("fs.s3a.retry.throttle.interval", "1ms");
      load(conf, "part-00001.parquet", 2, Duration.ofMillis(10));
      // Each of our 2 attempts is S3A's 1 + 2 throttle retries.
      assertEquals(6, proxy.seen("GET", "part-00001.parquet").size(), proxy.seen().toString());
    }
  }

  @Test
  void oneAttemptTriesOnce() throws Exception {
    try (FaultyProxy proxy = proxy((request, nth) -> request.startsWith("GET ") && request.endsWith("part-00004.parquet")
        && nth == 0 ? FaultyProxy.DROP : FaultyProxy.PASS)) {
      Throwable e = load(through(proxy), "part-00004.parquet", 1, Duration.ZERO);
      assertTrue(io(e).getMessage().contains(set + "part-00004.parquet (1 attempt in "), io(e).getMessage());
      assertEquals(1, proxy.seen("GET", "part-00004.parquet").size(), proxy.seen().toString());
    }
  }
}
