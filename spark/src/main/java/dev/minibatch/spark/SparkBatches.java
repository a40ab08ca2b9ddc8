package dev.minibatch.spark;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.internal.engine.SampleOrder;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.interop.ProviderIterators;
import dev.minibatch.spark.internal.RowValues;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import scala.Tuple2;

/**
 * Batches of {@link SparkSamples} built on the executors by the generated collate, in the engine's
 * order: for epoch {@code e}, batch {@code j} holds exactly the samples a provider over the same
 * samples with the same settings would put there ({@link SampleOrder}: the permutation from (seed,
 * epoch), the shard, the last-batch cut and padding). The driver plans the epoch, broadcasts it,
 * and every row travels to the partition of its batch; each partition feeds its rows, in order, to
 * the generated provider and hands out its batches as ND4J {@code MultiDataSet}s or {@code
 * DataSet}s. Partition {@code k} holds a contiguous run of batches, so the RDD's order is the
 * epoch's order.
 *
 * <p>A {@code DataSet} or {@code MultiDataSet} has no padding count: padded rows (PAD_* policies)
 * are ordinary rows in it. With DL4J's Spark training, prefer DISCARD or PARTIAL.
 *
 * @param <T> the record
 * @param <P> its generated provider
 */
public final class SparkBatches<T, P extends BatchProvider<?>> {
  private final SparkSamples<T, P> samples;
  private final ProviderSettings settings;
  private final Sampling sampling;
  private final int partitions;

  private SparkBatches(SparkSamples<T, P> samples, ProviderSettings settings, int numParts, int part, int partitions) {
    this.samples = samples;
    this.settings = settings;
    this.sampling = SettingsProbe.sampling(samples.rows(), settings, numParts, part);
    this.partitions = partitions;
    // Fails here, on the driver, for settings that cannot plan these samples (an empty shard, say).
    new SampleOrder((int) samples.count(), sampling);
  }

  static <T, P extends BatchProvider<?>> Builder<T, P> builder(SparkSamples<T, P> samples, ProviderSettings settings) {
    return new Builder<>(samples, settings);
  }

  /**
   * The plan of {@code epoch}: each batch's global sample indices, as the engine orders them (the
   * epochs before it are planned too, for ROLL_OVER's and PAD_CONTINUE's carried samples).
   */
  SampleOrder.Epoch order(int epoch) {
    Check.atLeast("epoch", epoch, 0);
    SampleOrder order = new SampleOrder((int) samples.count(), sampling);
    SampleOrder.Epoch e = order.nextEpoch();
    while (e.epoch() < epoch) {
      e = order.nextEpoch();
    }
    return e;
  }

  /** The settings' sampling as read on the driver (seed drawn there when none was set). */
  Sampling sampling() {
    return sampling;
  }

  /** Epoch {@code epoch}'s batches as {@code MultiDataSet}s (data arrays as features, labels as labels), in order. */
  public JavaRDD<MultiDataSet> multiDataSets(int epoch) {
    return build(epoch).map(Tuple2::_2);
  }

  /**
   * Epoch {@code epoch}'s batches as {@code DataSet}s, for a record with one data and one label
   * member (DL4J's {@code SparkDl4jMultiLayer.fit(JavaRDD<DataSet>)}).
   *
   * @throws IllegalArgumentException if the record has more or fewer members
   */
  public JavaRDD<DataSet> dataSets(int epoch) {
    requireSingle();
    return multiDataSets(epoch).map(m -> new DataSet(m.getFeatures(0), m.getLabels(0)));
  }

  /** Batch files. */
  public enum Format {
    /** {@code DataSet.save}: one data and one label member; DL4J's {@code fitPaths}. */
    DATA_SET,
    /** {@code MultiDataSet.save}: any members; DL4J's {@code fitPathsMultiDataSet}. */
    MULTI_DATA_SET
  }

  /**
   * Writes epoch {@code epoch}'s batches from the executors to {@code dir} (any Hadoop file system
   * URI: a local path, {@code hdfs://}, {@code s3a://}), one file per batch named {@link
   * SavedBatches#fileName}; returns the paths in batch order, for DL4J's {@code fitPaths} or
   * {@link SavedBatches}.
   *
   * @throws SparkSampleException if a sample fails on an executor
   */
  public List<String> save(String dir, int epoch, Format format) {
    if (format == Format.DATA_SET) {
      requireSingle();
    }
    JavaRDD<String> paths = build(epoch).map(t -> {
      Path file = new Path(dir, SavedBatches.fileName(format, t._1()));
      FileSystem fs = file.getFileSystem(new Configuration());
      if (fs instanceof LocalFileSystem local) {
        // no .crc files beside the batches: readers count the files of the directory
        fs = local.getRawFileSystem();
      }
      try (OutputStream out = fs.create(file, false)) {
        if (format == Format.DATA_SET) {
          new DataSet(t._2().getFeatures(0), t._2().getLabels(0)).save(out);
        } else {
          t._2().save(out);
        }
      } catch (IOException e) {
        throw IoFailure.of("write", "batch " + t._1() + " to " + file, e);
      }
      return file.toString();
    });
    return SparkSampleException.action(paths::collect);
  }

  private void requireSingle() {
    StructType schema = samples.rows().schema();
    int data = RowValues.count(schema, "data");
    int labels = RowValues.count(schema, "label");
    if (data != 1 || labels != 1) {
      throw new IllegalArgumentException("a DataSet holds one data and one label array; "
          + samples.rows().sampleType().getSimpleName() + " has " + data + " data and " + labels
          + " label members; use multiDataSets or Format.MULTI_DATA_SET");
    }
  }

  /** (global batch number, batch) in batch order. */
  private JavaRDD<Tuple2<Integer, MultiDataSet>> build(int epoch) {
    SampleOrder.Epoch plan = order(epoch);
    int batchSize = new SampleOrder((int) samples.count(), sampling).batchSize();
    Route route = Route.of(plan, batchSize, (int) samples.count());
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(samples.session().sparkContext());
    Broadcast<Route> shared = jsc.broadcast(route);
    int parts = Math.max(1, Math.min(plan.batchCount(),
        partitions > 0 ? partitions : samples.indexedRows().getNumPartitions()));
    boolean constantPad = plan.lastPad() > 0 && plan.batches()[plan.batchCount() - 1][plan.batches()[plan.batchCount() - 1].length - 1]
        == SampleOrder.CONSTANT_PAD;
    SparkRows<T, P> rows = samples.rows();
    ProviderSettings user = settings;
    int batches = plan.batchCount();
    JavaPairRDD<Long, Row> routed = samples.indexedRows().flatMapToPair(t -> {
      Route r = shared.value();
      int i = (int) (long) t._1();
      List<Tuple2<Long, Row>> out = new ArrayList<>(1);
      for (int k = r.offsets[i]; k < r.offsets[i + 1]; k++) {
        out.add(new Tuple2<>((long) r.positions[k], t._2()));
      }
      return out.iterator();
    });
    return routed.repartitionAndSortWithinPartitions(new BatchPartitioner(batches, batchSize, parts))
        .mapPartitions(it -> collate(it, shared.value(), rows, user, batchSize, batches, constantPad, epoch));
  }

  private static <T, P extends BatchProvider<?>> Iterator<Tuple2<Integer, MultiDataSet>> collate(
      Iterator<Tuple2<Long, Row>> it, Route route, SparkRows<T, P> rows, ProviderSettings user, int batchSize,
      int batches, boolean constantPad, int epoch) {
    List<T> list = new ArrayList<>();
    long first = -1;
    ExecutorSamples.Where where = (index, q) -> "sample " + index + " (epoch " + epoch + ", batch " + q / batchSize + ")";
    while (it.hasNext()) {
      Tuple2<Long, Row> t = it.next();
      long q = t._1();
      if (first < 0) {
        first = q;
      }
      int index = route.stream[(int) q];
      list.add(ExecutorSamples.sample(rows, t._2(), index, q, where));
    }
    List<Tuple2<Integer, MultiDataSet>> out = new ArrayList<>();
    if (list.isEmpty()) {
      return out.iterator();
    }
    int firstBatch = (int) (first / batchSize);
    int lastBatch = firstBatch + (list.size() - 1) / batchSize;
    boolean pad = constantPad && lastBatch == batches - 1;
    // The rows are already in the epoch's order: the provider only cuts and collates them.
    try (P provider = ExecutorSamples.inOrder(rows, list, user, batchSize, pad ? LastBatch.PAD_CONSTANT : LastBatch.PARTIAL)) {
      // Copies, so the batches outlive the provider; padding rows kept, since a padded last batch is
      // what the caller asked for with PAD_CONSTANT.
      MultiDataSetIterator batchesOut = ProviderIterators.multiDataSet(provider,
          ProviderIterators.Options.builder().detach(true).keepPadding(true).build());
      int j = firstBatch;
      while (batchesOut.hasNext()) {
        try {
          out.add(new Tuple2<>(j, batchesOut.next()));
        } catch (RuntimeException e) {
          int from = (j - firstBatch) * batchSize;
          int to = Math.min(list.size(), from + batchSize);
          long[] indices = new long[to - from];
          for (int k = 0; k < indices.length; k++) {
            indices[k] = route.stream[(int) first + from + k];
          }
          throw failure(rows, user, list, from, indices, j, epoch, e);
        }
        j++;
      }
    }
    return out.iterator();
  }

  /**
   * The failure of batch {@code j}, whose samples are {@code list}'s from {@code from} with global
   * indices {@code indices}: narrowed to its first sample that fails in a provider of its own (a bad
   * encoded image, say), named by its global index, since the provider's own message counts samples
   * in this executor's list; else the batch's failure, naming all its samples.
   */
  private static <T, P extends BatchProvider<?>> SparkSampleException failure(SparkRows<T, P> rows,
      ProviderSettings user, List<T> list, int from, long[] indices, int j, int epoch, RuntimeException e) {
    for (int k = 0; k < indices.length && indices.length > 1; k++) {
      try (P alone = ExecutorSamples.inOrder(rows, List.of(list.get(from + k)), user, 1, LastBatch.PARTIAL)) {
        alone.iterator().forEachRemaining(b -> { });
      } catch (RuntimeException one) {
        SparkSampleException narrowed = new SparkSampleException("sample " + indices[k] + " (epoch " + epoch
            + ", batch " + j + "; collated alone, as sample 0)", indices[k], one);
        // The batch's own failure stays with it: the sample alone may have failed for another reason.
        narrowed.addSuppressed(e);
        return narrowed;
      }
    }
    return new SparkSampleException("batch " + j + " of epoch " + epoch + " (samples "
        + java.util.Arrays.toString(indices) + ")", indices.length == 1 ? indices[0] : -1, e);
  }

  /** Which epoch positions each sample fills (CSR: sample i at positions[offsets[i] .. offsets[i+1])). */
  static final class Route implements Serializable {
    private static final long serialVersionUID = 1L;
    final int[] stream;
    final int[] offsets;
    final int[] positions;

    private Route(int[] stream, int[] offsets, int[] positions) {
      this.stream = stream;
      this.offsets = offsets;
      this.positions = positions;
    }

    static Route of(SampleOrder.Epoch plan, int batchSize, int numSamples) {
      int[] stream = plan.rows();
      int[] offsets = new int[numSamples + 1];
      for (int s : stream) {
        if (s >= 0) {
          offsets[s + 1]++;
        }
      }
      for (int i = 0; i < numSamples; i++) {
        offsets[i + 1] += offsets[i];
      }
      int[] fill = offsets.clone();
      int[] positions = new int[offsets[numSamples]];
      for (int q = 0; q < stream.length; q++) {
        if (stream[q] >= 0) {
          positions[fill[stream[q]]++] = q;
        }
      }
      return new Route(stream, offsets, positions);
    }
  }

  /** Epoch position → partition: batch {@code b} of {@code B} to partition {@code b * parts / B}. */
  static final class BatchPartitioner extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int batches;
    private final int batchSize;
    private final int parts;

    BatchPartitioner(int batches, int batchSize, int parts) {
      this.batches = batches;
      this.batchSize = batchSize;
      this.parts = parts;
    }

    @Override
    public int numPartitions() {
      return parts;
    }

    @Override
    public int getPartition(Object key) {
      long q = (Long) key;
      return (int) ((q / batchSize) * parts / batches);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BatchPartitioner p && p.batches == batches && p.batchSize == batchSize && p.parts == parts;
    }

    @Override
    public int hashCode() {
      return (batches * 31 + batchSize) * 31 + parts;
    }
  }

  /**
   * Builds {@link SparkBatches}.
   *
   * @param <T> the record
   * @param <P> its generated provider
   */
  public static final class Builder<T, P extends BatchProvider<?>> {
    private final SparkSamples<T, P> samples;
    private final ProviderSettings settings;
    private int numParts = 1;
    private int part;
    private int partitions;

    private Builder(SparkSamples<T, P> samples, ProviderSettings settings) {
      this.samples = samples;
      this.settings = settings;
    }

    /** Only shard {@code part} of {@code numParts}, as {@code shard(numParts, part)} on a provider. */
    public Builder<T, P> shard(int numParts, int part) {
      this.numParts = numParts;
      this.part = part;
      return this;
    }

    /** Partitions of the batch RDD (default: the samples' partitions, at most one per batch). */
    public Builder<T, P> partitions(int partitions) {
      this.partitions = Check.atLeast("partitions", partitions, 1);
      return this;
    }

    /**
     * The batches.
     *
     * @throws IllegalArgumentException for settings the samples cannot be planned with
     */
    public SparkBatches<T, P> build() {
      return new SparkBatches<>(samples, settings, numParts, part, partitions);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SparkBatches[%d samples, %s]", samples.count(), sampling);
  }
}
