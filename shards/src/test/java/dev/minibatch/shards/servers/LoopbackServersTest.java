package dev.minibatch.shards.servers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The test servers are real and leave nothing behind: through Hadoop's {@link FileSystem} on each
 * server's URI, a file of known bytes is written, listed, read whole and read at positions
 * (including across HDFS block boundaries), a missing path is not found; the server listens on
 * 127.0.0.1 only, and after {@code close} none of its threads and none of its sockets remain.
 */
class LoopbackServersTest {
  /** A little over 3 MiB: four HDFS blocks of {@link LoopbackHdfs#BLOCK_SIZE}, the last partial. */
  private static final int LENGTH = 3 * (1 << 20) + 12_345;

  /**
   * Threads that may outlive a server: daemon threads that, once something started them, the JVM
   * keeps for every later server or client (a static field holds them, or they belong to the JDK),
   * or that end by themselves a fixed time after their last user closed:
   *
   * <ul>
   *   <li>{@code process reaper}: the JDK's pool of threads that wait for child processes (Hadoop
   *       runs {@code bash}, {@code id}, {@code du}, {@code df}); idle ones end after 60 s.
   *   <li>Workers of the JDK's common {@link ForkJoinPool}, which the AWS SDK and jclouds use for
   *       asynchronous work; idle ones end after 60 s.
   *   <li>Workers of HDFS's {@code BlockPoolSlice.addReplicaThreadPool}, a {@link ForkJoinPool} in a
   *       static field that the data node creates once per JVM to read its volumes at start and
   *       never shuts down; idle ones end after 60 s.
   *   <li>{@code org.apache.hadoop.fs.FileSystem$Statistics$StatisticsDataReferenceCleaner}: started
   *       by the class initialiser of {@code FileSystem.Statistics}, never stopped.
   *   <li>{@code SSL Certificates Store Monitor}: a timer of the {@code SSLFactory} that HDFS's
   *       {@code server.common.Util} creates in its class initialiser (for HTTP image transfers) and
   *       keeps in a static field; its factory starts the timer even when there is nothing to
   *       monitor.
   *   <li>{@code MutableQuantiles-N}: the scheduler in a static field of Hadoop's metrics {@code
   *       MutableQuantiles} (used by the name node's and S3A's metrics), never shut down.
   *   <li>{@code LeaseRenewer:user@127.0.0.1:port}: the HDFS client's lease renewer for that name
   *       node, shared by the JVM's clients; it ends 60 s after its last client closed.
   * </ul>
   */
  private static final List<Pattern> JVM_WIDE_DAEMONS = List.of(
      Pattern.compile(Pattern.quote("process reaper")),
      Pattern.compile(Pattern.quote("org.apache.hadoop.fs.FileSystem$Statistics$StatisticsDataReferenceCleaner")),
      Pattern.compile(Pattern.quote("SSL Certificates Store Monitor")),
      Pattern.compile("MutableQuantiles-\\d+"),
      Pattern.compile("LeaseRenewer:[^@]+@127\\.0\\.0\\.1:\\d+"));

  private static final long THREAD_END_SECONDS = 30;

  @Test
  void hdfsWritesListsReadsAndStopsClean() throws Exception {
    Set<Thread> threadsBefore = liveThreads();
    Set<OpenSockets.Socket> socketsBefore = sockets();
    Set<Integer> ports;
    java.nio.file.Path baseDir;
    try (LoopbackHdfs hdfs = LoopbackHdfs.start()) {
      ports = hdfs.ports();
      baseDir = hdfs.baseDir();
      assertTrue(baseDir.startsWith(java.nio.file.Path.of("target").toAbsolutePath()), baseDir::toString);
      URI root = hdfs.root();
      assertEquals("hdfs://127.0.0.1:" + root.getPort() + "/", root.toString());
      assertTrue(ports.contains(root.getPort()), () -> root + " " + ports);
      assertListensOnLoopbackOnly(socketsBefore, ports);
      writeListAndRead(hdfs.root(), hdfs.conf());
    }
    assertFalse(Files.exists(baseDir), "the cluster's directory is deleted: " + baseDir);
    assertNothingLeft(threadsBefore, socketsBefore, ports);
  }

  @Test
  void s3WritesListsReadsAndStopsClean() throws Exception {
    Set<Thread> threadsBefore = liveThreads();
    Set<OpenSockets.Socket> socketsBefore = sockets();
    Set<Integer> ports;
    try (LoopbackS3 s3 = LoopbackS3.start()) {
      ports = s3.ports();
      assertEquals(URI.create("s3a://" + LoopbackS3.BUCKET + "/"), s3.root());
      assertListensOnLoopbackOnly(socketsBefore, ports);
      writeListAndRead(s3.root(), s3.conf());
    }
    assertNothingLeft(threadsBefore, socketsBefore, ports);
  }

  /** Bytes known by construction: a fixed-seed generator's, so every byte value occurs. */
  private static byte[] knownBytes() {
    byte[] data = new byte[LENGTH];
    new SplittableRandom(20240611L).nextBytes(data);
    return data;
  }

  private static void writeListAndRead(URI root, Configuration conf) throws IOException {
    byte[] data = knownBytes();
    try (FileSystem fs = FileSystem.get(root, conf)) {
      Path dir = new Path(new Path(root), "servers-test");
      Path file = new Path(dir, "part-00000.bin");

      try (FSDataOutputStream out = fs.create(file, false)) {
        // Uneven writes, so that neither a packet nor a block boundary falls on a write boundary.
        for (int at = 0, chunk = 100_003; at < LENGTH; at += chunk) {
          out.write(data, at, Math.min(chunk, LENGTH - at));
        }
      }

      FileStatus[] listed = fs.listStatus(dir);
      assertEquals(1, listed.length, () -> Arrays.toString(listed));
      assertEquals(file.getName(), listed[0].getPath().getName());
      assertTrue(listed[0].isFile());
      assertEquals(LENGTH, listed[0].getLen());
      assertEquals(LENGTH, fs.getFileStatus(file).getLen());

      try (FSDataInputStream in = fs.open(file)) {
        byte[] whole = in.readAllBytes();
        assertEquals(LENGTH, whole.length);
        assertArrayEquals(data, whole);
        assertEquals(-1, in.read());
      }

      int block = LoopbackHdfs.BLOCK_SIZE;
      // {position, length}: the first bytes, across the first and the second block boundary, a
      // block exactly, the last bytes, one byte in the middle.
      int[][] reads = {
        {0, 4096}, {block - 7, 100}, {2 * block - 65_536, 131_072}, {block, block},
        {LENGTH - 1000, 1000}, {LENGTH / 2, 1},
      };
      try (FSDataInputStream in = fs.open(file)) {
        for (int[] read : reads) {
          byte[] buf = new byte[read[1]];
          in.readFully(read[0], buf);
          assertArrayEquals(Arrays.copyOfRange(data, read[0], read[0] + read[1]), buf,
              () -> "positional read of " + read[1] + " bytes at " + read[0]);
        }
        // A positional read leaves the stream's position alone.
        assertEquals(0, in.getPos());
        byte[] past = new byte[10];
        assertThrows(EOFException.class, () -> in.readFully(LENGTH - 5, past));
      }

      Path missing = new Path(dir, "missing.bin");
      assertThrows(FileNotFoundException.class, () -> fs.getFileStatus(missing));
      assertThrows(FileNotFoundException.class, () -> fs.open(missing).close());
      assertThrows(FileNotFoundException.class, () -> fs.listStatus(new Path(root.toString() + "no-such-dir")));
    }
  }

  private static Set<Thread> liveThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
  }

  private static Set<OpenSockets.Socket> sockets() throws IOException {
    return OpenSockets.available() ? OpenSockets.ofThisProcess() : Set.of();
  }

  /** Each reported port listens, and every socket the server opened to listen is on 127.0.0.1. */
  private static void assertListensOnLoopbackOnly(Set<OpenSockets.Socket> before, Set<Integer> ports)
      throws IOException {
    for (int port : ports) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      }
    }
    if (OpenSockets.available()) {
      Set<OpenSockets.Socket> opened = new HashSet<>(OpenSockets.ofThisProcess());
      opened.removeAll(before);
      Set<OpenSockets.Socket> listening =
          opened.stream().filter(OpenSockets.Socket::listening).collect(Collectors.toSet());
      for (int port : ports) {
        assertTrue(listening.stream().anyMatch(s -> s.localPort() == port), () -> port + " in " + listening);
      }
      for (OpenSockets.Socket s : listening) {
        assertEquals("127.0.0.1", s.localAddress(), () -> "listens beyond loopback: " + s);
      }
    }
  }

  /**
   * After close: no thread the server started is alive (other than {@link #JVM_WIDE_DAEMONS}),
   * nothing accepts connections on its ports, and this process holds no socket it did not hold
   * before (none listening, none connected).
   */
  private static void assertNothingLeft(
      Set<Thread> threadsBefore, Set<OpenSockets.Socket> socketsBefore, Set<Integer> ports)
      throws IOException, InterruptedException {
    Set<Thread> left = awaitEnd(threadsBefore);
    Set<Thread> unexpected = left.stream()
        .filter(t -> !jvmWideDaemon(t))
        .collect(Collectors.toSet());
    assertTrue(unexpected.isEmpty(), () -> "threads left running: " + describe(unexpected));

    for (int port : ports) {
      assertThrows(ConnectException.class, () -> {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        }
      }, () -> "port " + port + " still accepts connections");
    }
    if (OpenSockets.available()) {
      Set<OpenSockets.Socket> opened = new HashSet<>(OpenSockets.ofThisProcess());
      opened.removeAll(socketsBefore);
      assertTrue(opened.isEmpty(), () -> "sockets left open: " + opened + "; the server's ports: " + ports);
    }
  }

  /**
   * Waits, by joining them with a bounded timeout and never by sleeping, until the threads started
   * since {@code before} have ended or only JVM-wide daemons are left; returns the live ones.
   */
  private static Set<Thread> awaitEnd(Set<Thread> before) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(THREAD_END_SECONDS);
    while (true) {
      Set<Thread> started = liveThreads();
      started.removeAll(before);
      Set<Thread> waitFor = started.stream()
          .filter(t -> !jvmWideDaemon(t))
          .collect(Collectors.toSet());
      if (waitFor.isEmpty() || System.nanoTime() > deadline) {
        return started;
      }
      for (Thread t : waitFor) {
        t.join(50);
      }
    }
  }

  /** Whether {@code t} is one of the daemon threads listed at {@link #JVM_WIDE_DAEMONS}. */
  private static boolean jvmWideDaemon(Thread t) {
    if (!t.isDaemon()) {
      return false;
    }
    if (t instanceof ForkJoinWorkerThread worker) {
      return worker.getPool() == ForkJoinPool.commonPool() || worker.getPool() == hdfsAddReplicaPool();
    }
    return JVM_WIDE_DAEMONS.stream().anyMatch(p -> p.matcher(t.getName()).matches());
  }

  /** HDFS's static {@code BlockPoolSlice.addReplicaThreadPool}, or null before a data node made it. */
  private static @Nullable ForkJoinPool hdfsAddReplicaPool() {
    try {
      Field pool = Class.forName("org.apache.hadoop.hdfs.server.datanode.fsdataset.impl.BlockPoolSlice")
          .getDeclaredField("addReplicaThreadPool");
      pool.setAccessible(true);
      return (ForkJoinPool) pool.get(null);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("HDFS's data node no longer keeps its pool there; see JVM_WIDE_DAEMONS", e);
    }
  }

  private static String describe(Set<Thread> threads) {
    return threads.stream()
        .sorted(Comparator.comparing(Thread::getName))
        .map(t -> t.getName() + (t.isDaemon() ? " (daemon, " : " (") + t.getState() + ", at "
            + Arrays.stream(t.getStackTrace()).limit(6).map(String::valueOf).collect(Collectors.joining(" < "))
            + ")")
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
