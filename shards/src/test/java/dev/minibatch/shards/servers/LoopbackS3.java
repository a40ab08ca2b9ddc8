package dev.minibatch.shards.servers;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.logging.slf4j.config.SLF4JLoggingModule;

/**
 * A real S3 server in this JVM: S3Proxy on 127.0.0.1, at a port the system picks, in front of
 * jclouds' in-memory ("transient") blob store, with one bucket, {@link #BUCKET}, created at start.
 * It checks AWS signatures (V2 or V4) against {@link #ACCESS_KEY} and {@link #SECRET_KEY}.
 *
 * <p>A client reaches it through Hadoop's S3A: {@code FileSystem.get(root(), conf())}, with {@link
 * #conf} pointing S3A at the server (plain HTTP, path-style requests, those keys). {@code
 * FileSystem.get} caches the instance for the JVM; close it when done, or its client threads
 * outlive the server.
 */
public final class LoopbackS3 implements AutoCloseable {
  /** The bucket created at start. */
  public static final String BUCKET = "minibatch-shards";
  /** The access key the server accepts. */
  public static final String ACCESS_KEY = "loopback-access";
  /** The secret key the server accepts. */
  public static final String SECRET_KEY = "loopback-secret";

  private final BlobStoreContext blobs;
  private final S3Proxy proxy;
  private final URI root;
  private final Configuration client;

  private LoopbackS3(BlobStoreContext blobs, S3Proxy proxy) {
    this.blobs = blobs;
    this.proxy = proxy;
    this.root = URI.create("s3a://" + BUCKET + "/");
    Configuration conf = new Configuration();
    conf.set("fs.s3a.endpoint", "http://127.0.0.1:" + proxy.getPort());
    conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
    // Path-style (http://host/bucket/key): a virtual-host name (bucket.127.0.0.1) resolves nowhere.
    conf.setBoolean("fs.s3a.path.style.access", true);
    // A region given, so that neither S3A nor the AWS SDK looks for one (environment, profile
    // files, the EC2 instance metadata address).
    conf.set("fs.s3a.endpoint.region", "us-east-1");
    // These keys only: the default chain would also try environment variables and the EC2
    // instance metadata service.
    conf.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set("fs.s3a.access.key", ACCESS_KEY);
    conf.set("fs.s3a.secret.key", SECRET_KEY);
    // Uploads are buffered in memory, not in files under hadoop.tmp.dir (/tmp by default).
    conf.set("fs.s3a.fast.upload.buffer", "bytebuffer");
    this.client = conf;
  }

  /** Starts the server and creates {@link #BUCKET}. */
  public static LoopbackS3 start() throws Exception {
    BlobStoreContext blobs = ContextBuilder.newBuilder("transient")
        // Without this module jclouds logs through java.util.logging, which our SLF4J settings miss.
        .modules(List.of(new SLF4JLoggingModule()))
        .build(BlobStoreContext.class);
    try {
      blobs.getBlobStore().createContainerInLocation(null, BUCKET);
      S3Proxy proxy = S3Proxy.builder()
          .blobStore(blobs.getBlobStore())
          .endpoint(URI.create("http://127.0.0.1:0"))
          .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
          .build();
      proxy.start();
      return new LoopbackS3(blobs, proxy);
    } catch (Exception | Error e) {
      blobs.close();
      throw e;
    }
  }

  /** The bucket's root, {@code s3a://minibatch-shards/}. */
  public URI root() {
    return root;
  }

  /**
   * A new client configuration: Hadoop's defaults and the S3A settings that reach this server. A
   * copy each call, so a test may change it freely.
   */
  public Configuration conf() {
    return new Configuration(client);
  }

  /** The one TCP port the server listens on. */
  public Set<Integer> ports() {
    return Set.of(proxy.getPort());
  }

  /** Stops the server and drops the blob store's contents. */
  @Override
  public void close() throws IOException {
    try {
      proxy.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while S3Proxy stopped");
    } catch (Exception e) {
      // Jetty's stop() declares Exception.
      throw new IOException("S3Proxy did not stop", e);
    } finally {
      blobs.close();
    }
  }
}
