package dev.minibatch.spark.internal;

import dev.minibatch.shards.ShardWriter;
import java.util.List;

/**
 * Implemented by a generated {@code <Sample>SparkRows} whose sample has encoded-image members (when
 * {@code minibatch-shards} is on the compile class path, as it is with this module): writes samples
 * into a shard segment as the generated {@code <Sample>Shards} writes them, each image's encoded
 * bytes stored as they are, never decoded. {@code SparkSamples.writeShards} calls it on the
 * executors; a shard set written from Lists of such samples and one written from Spark rows are the
 * same files.
 *
 * @param <T> the sample
 */
public interface EncodedSegments<T> {
  /**
   * Appends {@code samples}, samples {@code base, base + 1, ...} of those written (for messages), to
   * {@code segment}.
   *
   * @throws IllegalArgumentException naming the sample and member whose encoded bytes are missing or
   *     empty
   */
  void writeEncoded(ShardWriter.Segment segment, List<T> samples, long base);
}
