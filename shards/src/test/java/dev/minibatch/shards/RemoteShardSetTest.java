package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.servers.LoopbackHdfs;
import dev.minibatch.shards.servers.LoopbackS3;
import java.io.OutputStream;
import java.net.URI;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A shard set written to and streamed from a real HDFS (an in-process MiniDFSCluster) and a real
 * S3 server (S3Proxy on 127.0.0.1, through Hadoop's S3A client): sample {@code i} holds {@code i}
 * in each of its 16 floats and label {@code i % 7}, so every row says which sample it is.
 */
class RemoteShardSetTest {
  private static final int N = 500;

  @Test
  void hdfs() throws Exception {
    try (LoopbackHdfs hdfs = LoopbackHdfs.start()) {
      roundTrip(hdfs.root(), hdfs.conf());
    }
  }

  @Test
  void s3() throws Exception {
    try (LoopbackS3 s3 = LoopbackS3.start()) {
      roundTrip(s3.root(), s3.conf());
    }
  }

  private static void roundTrip(URI root, Configuration conf) throws Exception {
    String set = root.resolve("digits/").toString();
    float[][] data = new float[N][16];
    int[] labels = new int[N];
    for (int i = 0; i < N; i++) {
      java.util.Arrays.fill(data[i], i);
      labels[i] = i % 7;
    }
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("x", Nd4j.create(data))
        .label("y", Nd4j.createFromArray(labels)).batchSize(100).build()) {
      ShardSet written = ShardWriter.builder().samplesPerFile(64).configuration(conf).build().write(source, set);
      assertEquals(8, written.files());
    }
    ShardSet opened = ShardSet.open(set, conf);
    assertEquals(N, opened.samples());
    try (ShardProvider p = opened.provider().batchSize(32).shuffle(true).seed(3).shuffleWindow(100).readers(2).build()) {
      for (int epoch = 0; epoch < 2; epoch++) {
        Set<Integer> seen = new HashSet<>();
        for (NamedBatch b : p) {
          INDArray x = b.get("x");
          for (int r = 0; r < b.rows(); r++) {
            int id = (int) x.getFloat(r, 0);
            assertEquals(id, x.getFloat(r, 15), 0f);
            assertEquals(id % 7, b.get("y").getInt(r));
            assertTrue(seen.add(id), "sample " + id + " twice in epoch " + epoch);
          }
        }
        assertEquals(N, seen.size());
      }
    }
    // A file cut short on the server is named by its URI.
    int cut;
    try (FileSystem fs = FileSystem.newInstance(root, conf)) {
      Path part = new Path(set + "part-00002.parquet");
      byte[] whole;
      try (var in = fs.open(part)) {
        whole = in.readAllBytes();
      }
      cut = whole.length / 2;
      try (OutputStream out = fs.create(part, true)) {
        out.write(whole, 0, cut);
      }
    }
    FileFormatException e = assertThrows(FileFormatException.class, () -> {
      try (ShardProvider p = ShardProvider.builder(set).configuration(conf).batchSize(32).build()) {
        for (NamedBatch b : p) {
          b.rows();
        }
      }
    });
    assertTrue(e.getMessage().startsWith(set + "part-00002.parquet: the file is " + cut + " bytes"),
        e.getMessage());
  }
}
