package dev.minibatch.spark;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.spark.internal.EncodedSegments;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.Row;
import org.jspecify.annotations.Nullable;
import scala.Tuple2;

/**
 * On an executor: one partition of {@link SparkSamples} written as one segment of a shard set. Its
 * rows become samples ({@link ExecutorSamples#sample}) a window at a time, and the generated
 * provider over the window ({@link ExecutorSamples#inOrder}) hands them, collated, to the shard
 * writer: the partition is never held whole. A sample with encoded images is written by its generated
 * mapping instead ({@link EncodedSegments}, through {@code <Sample>Shards}): the images' bytes are
 * stored as they are, not decoded.
 */
final class ShardSegment {
  /** Samples per window: the records held at once, and the provider's batch size. */
  static final int WINDOW = 1024;

  private ShardSegment() {}

  /**
   * Writes {@code rows} (one partition's (global index, row) pairs, ascending) as segment {@code segment}
   * of the shard set in {@code directory}.
   *
   * @return one pair: the global index of the segment's first sample (-1 when it has none) and what
   *     the segment wrote
   */
  static <T, P extends BatchProvider<?>> Iterator<Tuple2<Long, ShardWriter.WrittenSegment>> write(int segment,
      Iterator<Tuple2<Long, Row>> rows, SparkRows<T, P> mapping, ShardWriter writer, String directory) {
    List<T> window = new ArrayList<>(WINDOW);
    long first = -1;
    ProviderSettings none = b -> { };
    @SuppressWarnings("unchecked")
    @Nullable EncodedSegments<T> encoded = mapping instanceof EncodedSegments<?> e ? (EncodedSegments<T>) e : null;
    try (ShardWriter.Segment out = writer.segment(directory, segment)) {
      P full = null;
      try {
        while (rows.hasNext()) {
          window.clear();
          long windowFirst = -1;
          while (window.size() < WINDOW && rows.hasNext()) {
            Tuple2<Long, Row> t = rows.next();
            long index = t._1();
            if (first < 0) {
              first = index;
            }
            if (windowFirst < 0) {
              windowFirst = index;
            }
            window.add(ExecutorSamples.sample(mapping, t._2(), index, index, ExecutorSamples.DATA_SET_ROW));
          }
          if (encoded != null) {
            // The partition's rows are contiguous global indices: the window's samples are windowFirst, ….
            try {
              encoded.writeEncoded(out, window, windowFirst);
            } catch (IllegalArgumentException e) {
              // A sample the writer refuses (an image without bytes): its message names the sample by its
              // global index and the member. Other failures (the file system's) pass as the other path's do.
              throw new SparkSampleException("segment " + segment, -1, e);
            }
          } else if (window.size() == WINDOW) {
            // One provider for every full window: its list is refilled between epochs, never during one,
            // so its batch buffers are allocated once per partition.
            if (full == null) {
              full = ExecutorSamples.inOrder(mapping, window, none, WINDOW, LastBatch.PARTIAL);
            }
            out.write(full);
          } else {
            try (P last = ExecutorSamples.inOrder(mapping, window, none, WINDOW, LastBatch.PARTIAL)) {
              out.write(last);
            }
          }
        }
      } finally {
        if (full != null) {
          full.close();
        }
      }
      return List.of(new Tuple2<>(first, out.finish())).iterator();
    }
  }
}
