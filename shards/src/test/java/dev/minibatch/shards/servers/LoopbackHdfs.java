package dev.minibatch.shards.servers;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;

/**
 * A real HDFS in this JVM: Hadoop's {@link MiniDFSCluster} (from {@code hadoop-client-minicluster},
 * the shaded one made to go with {@code hadoop-client-api} and {@code -runtime}) with one name node
 * and one data node, all on 127.0.0.1 at ports the system picks, storing its blocks in a new
 * directory under {@code target/}. {@link #close} stops both nodes and deletes the directory.
 *
 * <p>A client reaches it as any HDFS: {@code FileSystem.get(root(), conf())}. {@code FileSystem.get}
 * caches the instance for the JVM; close it when done, or its client threads outlive the server.
 */
public final class LoopbackHdfs implements AutoCloseable {
  /**
   * The block size clients write with: HDFS's smallest (the name node's default minimum), so that a
   * file of a few megabytes spans several blocks and reads cross block boundaries.
   */
  public static final int BLOCK_SIZE = 1 << 20;

  private final MiniDFSCluster cluster;
  private final Path baseDir;
  private final URI root;
  private final Configuration client;

  private LoopbackHdfs(MiniDFSCluster cluster, Path baseDir) {
    this.cluster = cluster;
    this.baseDir = baseDir;
    this.root = URI.create("hdfs://127.0.0.1:" + cluster.getNameNodePort() + "/");
    // A client's settings only: where the cluster is comes from the URI, as for any HDFS.
    Configuration conf = new Configuration();
    // One data node: a file asks for one replica, or every block is under-replicated and the name
    // node warns about each.
    conf.setInt("dfs.replication", 1);
    conf.setLong("dfs.blocksize", BLOCK_SIZE);
    // No cache of idle connections to data nodes: it keeps a connection for 3 s after its last
    // use, past the server's close. The cache belongs to a client context that Hadoop keeps in a
    // static map by name and creates once with the first client's settings (the cluster's own),
    // so this cluster's clients get a context of their own.
    conf.set("dfs.client.context", "loopback-hdfs-" + cluster.getNameNodePort());
    conf.setInt("dfs.client.socketcache.capacity", 0);
    this.client = conf;
  }

  /** Starts a name node and a data node and waits until the data node has registered. */
  public static LoopbackHdfs start() throws IOException {
    Path target = Files.createDirectories(Path.of("target"));
    Path baseDir = Files.createTempDirectory(target, "loopback-hdfs-").toAbsolutePath();
    Configuration conf = new Configuration();
    // Everything the nodes write (name and data directories, Hadoop's tmp dir) stays under baseDir.
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDir.toString());
    conf.set("hadoop.tmp.dir", baseDir.resolve("tmp").toString());
    // MiniDFSCluster binds the name node's RPC and HTTP and the data node's transfer, IPC and HTTP
    // addresses to 127.0.0.1:0 already. The name node's HTTP server would also serve WebHDFS
    // (Jersey), which no test uses.
    conf.setBoolean("dfs.webhdfs.enabled", false);
    // The name node's GC time monitor thread outlives the cluster's shutdown; it only feeds
    // metrics.
    conf.setBoolean("dfs.namenode.gc.time.monitor.enable", false);
    // A client may add a block, or close its file, while its previous block is written
    // (committed) but not yet reported by the data node; otherwise it retries, sleeping 400 ms
    // and more, and warns (NotReplicatedYetException) when the report races its request.
    conf.setInt("dfs.namenode.file.close.num-committed-allowed", 1);
    // The HTTP servers sign their authentication cookies with a secret read from this file, by
    // default ~/hadoop-http-auth-signature-secret; without one they warn and use a random secret.
    Path secret = baseDir.resolve("http-auth-signature-secret");
    Files.writeString(secret, UUID.randomUUID().toString());
    conf.set("hadoop.http.authentication.signature.secret.file", secret.toString());
    MiniDFSCluster cluster =
        new MiniDFSCluster.Builder(conf, baseDir.toFile()).numDataNodes(1).format(true).build();
    try {
      cluster.waitActive();
    } catch (IOException | RuntimeException e) {
      cluster.shutdown(true);
      throw e;
    }
    return new LoopbackHdfs(cluster, baseDir);
  }

  /** The file system's root, {@code hdfs://127.0.0.1:port/}. */
  public URI root() {
    return root;
  }

  /**
   * A new client configuration: Hadoop's defaults, one replica per block, {@link #BLOCK_SIZE}
   * blocks, and no cache of idle connections to the data node (so that no client socket outlives
   * the server). A copy each call, so a test may change it freely.
   */
  public Configuration conf() {
    return new Configuration(client);
  }

  /** The TCP ports the nodes listen on: name node RPC and HTTP, data node transfer, IPC and HTTP. */
  public Set<Integer> ports() {
    DataNode dataNode = cluster.getDataNodes().get(0);
    return Set.of(
        cluster.getNameNodePort(),
        cluster.getNameNode().getHttpAddress().getPort(),
        dataNode.getXferPort(),
        dataNode.getIpcPort(),
        dataNode.getInfoPort());
  }

  /**
   * The bytes the data node has sent to readers so far, by its own metrics ({@code
   * DataNodeMetrics.bytesRead}, counted as each block read ends, so shortly after a client has its
   * bytes): what the server served, whichever processes read.
   */
  public long bytesServed() {
    try {
      Object metrics = cluster.getDataNodes().get(0).getMetrics();
      java.lang.reflect.Field bytesRead = metrics.getClass().getDeclaredField("bytesRead");
      bytesRead.setAccessible(true);
      return ((org.apache.hadoop.metrics2.lib.MutableCounterLong) bytesRead.get(metrics)).value();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("this Hadoop's data node keeps no bytesRead counter", e);
    }
  }

  /** The directory under {@code target/} that holds the nodes' files until {@link #close}. */
  public Path baseDir() {
    return baseDir;
  }

  /** Stops both nodes and deletes their directory. */
  @Override
  public void close() {
    cluster.shutdown(true);
  }
}
