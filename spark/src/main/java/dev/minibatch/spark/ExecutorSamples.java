package dev.minibatch.spark;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchProvider;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * How the executors (and the trainers reading materialised samples) turn rows into samples and
 * samples into a provider: one place for {@link SparkBatches}' batches, {@link SparkSamples}'
 * numbering and shard files, and {@link MaterializedSamples#read}.
 */
final class ExecutorSamples {
  private ExecutorSamples() {}

  /** Names a sample in a failure's message; called only when one fails, so no text is built per row. */
  @FunctionalInterface
  interface Where {
    /** The sample of global index {@code index} at {@code position} of the caller's order, in words. */
    String describe(long index, long position);
  }

  /** "row 17 of the data set": a sample named by its global index. */
  static final Where DATA_SET_ROW = (index, position) -> "row " + index + " of the data set";

  /**
   * The record in {@code row}, the sample of global index {@code index}.
   *
   * @param position where the caller met it (an epoch position, say), for {@code where}
   * @throws SparkSampleException naming the sample ({@code where}), with the mapping's failure as
   *     the cause
   */
  static <T> T sample(SparkRows<T, ?> rows, Row row, long index, long position, Where where) {
    try {
      return rows.fromRow(row, index);
    } catch (RuntimeException e) {
      throw new SparkSampleException(where.describe(index, position), index, e);
    }
  }

  /**
   * The generated provider over {@code samples} as they are ordered: {@code user}'s settings, then
   * batches of {@code batchSize}, no shuffle, one shard, and {@code last} for the last batch. The
   * caller has put the samples in the order it wants; the provider only cuts and collates them.
   */
  static <T, P extends BatchProvider<?>> P inOrder(SparkRows<T, P> rows, List<? extends T> samples,
      ProviderSettings user, int batchSize, LastBatch last) {
    return rows.provider(samples, b -> {
      user.accept(b);
      b.batchSize(batchSize).shuffle(false).shard(1, 0).evenShards(false).lastBatch(last);
    });
  }
}
