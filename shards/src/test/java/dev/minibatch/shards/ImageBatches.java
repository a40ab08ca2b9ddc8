package dev.minibatch.shards;

import dev.minibatch.runtime.NamedBatch;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/** What the image shard tests compare: batches as flat float arrays, and a set copied onto a server. */
final class ImageBatches {
  private ImageBatches() {}

  /** Every batch of {@code epochs} epochs: each one's {@code data} values, then its {@code label} values. */
  static List<float[]> read(Iterable<NamedBatch> provider, int epochs, String data, String label) {
    List<float[]> out = new ArrayList<>();
    for (int e = 0; e < epochs; e++) {
      for (NamedBatch b : provider) {
        out.add(floats(b.get(data)));
        out.add(floats(b.get(label)));
      }
    }
    return out;
  }

  /** The array's values in row-major order, as floats. */
  static float[] floats(INDArray a) {
    return a.castTo(DataType.FLOAT).dup('c').reshape(a.length()).toFloatVector();
  }

  /** Copies every file of the local set {@code from} into the remote directory {@code to} (ending in /), byte for byte. */
  static void copySet(String from, String to, Configuration conf) throws IOException {
    FileSystem localFs = FileSystem.getLocal(new Configuration());
    FileSystem remoteFs = FileSystem.newInstance(URI.create(to), conf);
    try {
      for (var status : localFs.listStatus(new Path(from))) {
        // Through a stream (FileUtil.copy), not copyFromLocalFile, whose S3A upload the test server refuses.
        FileUtil.copy(localFs, status.getPath(), remoteFs, new Path(to + status.getPath().getName()), false, conf);
      }
    } finally {
      remoteFs.close();
    }
  }
}
