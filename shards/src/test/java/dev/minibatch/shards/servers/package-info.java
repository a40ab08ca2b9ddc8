/**
 * Real HDFS and S3 servers for tests, started in this JVM on 127.0.0.1 from Maven Central
 * artifacts: {@link dev.minibatch.shards.servers.LoopbackHdfs} (Hadoop's MiniDFSCluster) and {@link
 * dev.minibatch.shards.servers.LoopbackS3} (S3Proxy, reached through Hadoop's S3A). Each gives the
 * URI of its root and a client {@code Configuration}, so that code under test opens them as any
 * {@code hdfs://} or {@code s3a://} file system.
 */
@NullMarked
package dev.minibatch.shards.servers;

import org.jspecify.annotations.NullMarked;
