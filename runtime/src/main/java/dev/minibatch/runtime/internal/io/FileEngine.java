package dev.minibatch.runtime.internal.io;

import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.engine.Multicast;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.spi.EpochDraws;
import dev.minibatch.runtime.internal.engine.RowSource;
import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.io.FileProvider;
import dev.minibatch.runtime.io.SampleProcessor;
import dev.minibatch.runtime.io.SampleProcessor.Sample;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * What every file provider runs on (each holds one; none extends it, so no provider's API names
 * it): the file's samples, loaded once into {@link RowSource}s whose axis 0 is the sample axis,
 * and the batching engine over them ({@link BatchEngine}: last-batch policies, shuffle and seed,
 * sharding, resumable state, reader threads) — the same engine and semantics as {@code
 * ArrayDataProvider}. A batch stays valid until the iterator moves on ({@link
 * dev.minibatch.runtime.Batch#copy()} keeps one). {@link #sample(int)} offers the same data one
 * sample at a time.
 */
public final class FileEngine implements FileProvider.LoadedFiles {
  private final String name;
  private final List<String> names = new ArrayList<>();
  private final RowSource[] sources;
  private final BatchLayout sampleLayout;
  private final Sampling sampling;
  private final @Nullable EpochDraws draws;
  private @Nullable Readers readers;
  private @Nullable Consumer<? super NamedBatch> delivery;
  private @Nullable BatchEngine<NamedBatch> engine;

  /**
   * Reader threads that fill the batches (Data Provider Core's Readers).
   *
   * @param stage the readers' stage: its name in failures and thread names; their number and ring
   *     are the settings'
   * @param process the process function run on the readers for every sample, or null to copy rows
   * @param origin describes where sample {@code i} comes from, for error messages
   */
  public record Readers(String stage, @Nullable SampleProcessor process, IntFunction<String> origin) {}

  /**
   * The engine of provider {@code name} over {@code data} and {@code labels} (name → array, in
   * order) with {@code sampling}.
   *
   * @throws IllegalArgumentException for no data, arrays whose sample counts differ, an invalid
   *     batch size or shard, or padding for an unknown name
   */
  public FileEngine(String name, Sampling sampling, Map<String, INDArray> data, Map<String, INDArray> labels) {
    this(name, wrap(data), wrap(labels), sampling, null);
  }

  /**
   * The engine of provider {@code name} over row sources {@code data} and {@code labels} (name →
   * source, in order) with {@code sampling}.
   *
   * @throws IllegalArgumentException for no data, sources whose sample counts differ, an invalid
   *     batch size or shard, or padding for an unknown name
   */
  public FileEngine(String name, Map<String, RowSource> data, Map<String, RowSource> labels, Sampling sampling) {
    this(name, data, labels, sampling, null);
  }

  /**
   * As {@link #FileEngine(String, Map, Map, Sampling)}, with epochs that visit {@code draws} instead of
   * the (shuffled) samples when it is not null; the engine shards the draws and cuts them into
   * batches like any other order.
   *
   * @throws IllegalArgumentException as the other constructor; with draws, also for ROLL_OVER when
   *     a part has fewer draws than a batch (the carried draws would span several epochs)
   */
  public FileEngine(String name, Map<String, RowSource> data, Map<String, RowSource> labels, Sampling sampling,
      @Nullable EpochDraws draws) {
    this.name = name;
    if (data.isEmpty()) {
      throw new IllegalArgumentException("empty data: add at least one data array");
    }
    List<RowSource> all = new ArrayList<>();
    List<DataDesc> dataDescs = new ArrayList<>();
    List<DataDesc> labelDescs = new ArrayList<>();
    data.forEach((k, v) -> {
      names.add(k);
      all.add(v);
      dataDescs.add(DataDesc.of(k, 1, v.sampleShape(), v.dtype(), Role.DATA));
    });
    labels.forEach((k, v) -> {
      if (names.contains(k)) {
        throw new IllegalArgumentException("the name '" + k + "' is used twice; names must be unique across data and labels");
      }
      names.add(k);
      all.add(v);
      labelDescs.add(DataDesc.of(k, 1, v.sampleShape(), v.dtype(), Role.LABEL));
    });
    int n = all.get(0).rows();
    for (int i = 1; i < all.size(); i++) {
      if (all.get(i).rows() != n) {
        throw new IllegalArgumentException("sample counts differ: '" + names.get(0) + "' has " + n + " samples but '"
            + names.get(i) + "' has " + all.get(i).rows());
      }
    }
    if (n == 0) {
      throw new IllegalArgumentException("empty data: '" + names.get(0) + "' has 0 samples");
    }
    this.sources = all.toArray(new RowSource[0]);
    this.sampleLayout = BatchLayout.of(dataDescs, labelDescs);
    this.sampling = sampling;
    this.draws = draws;
    // Check the settings now (the engine itself is built on first use, after the subclass chose
    // its readers and delivery).
    engine();
  }

  private static Map<String, RowSource> wrap(Map<String, INDArray> arrays) {
    Map<String, RowSource> out = new LinkedHashMap<>();
    arrays.forEach((k, v) -> out.put(k, RowSource.of(v)));
    return out;
  }

  /**
   * Fill batches on reader threads from now on (call from the provider's constructor). Each epoch
   * starts its readers and stops them at its end, on close, or when a newer epoch starts.
   */
  public synchronized void useReaders(Readers settings) {
    this.readers = settings;
    rebuild();
  }

  /** Hand every batch to {@code delivery} on the consumer's thread before the iterator returns it. */
  public synchronized void useDelivery(Consumer<? super NamedBatch> delivery) {
    this.delivery = delivery;
    rebuild();
  }

  private void rebuild() {
    BatchEngine<NamedBatch> e = engine;
    if (e != null) {
      e.close();
      engine = null;
    }
  }

  /** The engine, built on first use after the provider chose its readers and delivery. */
  @Override
  public synchronized BatchEngine<NamedBatch> engine() {
    BatchEngine<NamedBatch> e = engine;
    if (e == null) {
      Readers r = readers;
      BatchEngine.Builder<NamedBatch> b = BatchEngine.<NamedBatch>builder(name, sources[0].rows(), sampling)
          .layout(this::layout)
          .batches(NamedBatch::new)
          .rows(r == null ? RowSource.writer(sources) : readerRows(r))
          .draws(draws)
          .delivery(delivery);
      e = (r == null ? b.copyingReaders(copyStage()) : b.readers(r.stage())).build();
      engine = e;
    }
    return e;
  }

  /**
   * The reader stage of a provider whose readers only copy loaded rows ({@code CsvProvider}: {@code
   * csv-reader}): set by {@code readers(n)} or autotuned like an {@code ArrayDataProvider}'s.
   */
  private String copyStage() {
    return name.replace("Provider", "").toLowerCase(java.util.Locale.ROOT) + "-reader";
  }

  /** The rows as reader threads write them: copies, or the process function, failures naming the sample's origin. */
  private RowWriter readerRows(Readers r) {
    SampleProcessor process = r.process();
    RowWriter copy = RowSource.writer(sources);
    RowWriter rows = process == null ? copy : new ProcessedRowWriter(process, this::sample);
    return (indices, from, to, slot) -> {
      try {
        rows.write(indices, from, to, slot);
      } catch (SampleFailure f) {
        throw f.named(r.stage(), r.origin());
      } catch (RuntimeException e) {
        int sample = indices[from];
        throw new SampleFailure("read", sample, "copying rows into the batch failed", e).named(r.stage(), r.origin());
      }
    };
  }

  private BatchLayout layout(int batchSize) {
    List<DataDesc> data = new ArrayList<>();
    List<DataDesc> label = new ArrayList<>();
    for (DataDesc d : sampleLayout.all()) {
      (d.role() == Role.DATA ? data : label).add(DataDesc.of(d.name(), batchSize, d.shape().dropFirst(), d.dtype(),
          d.role()));
    }
    return BatchLayout.of(data, label);
  }

  /**
   * The next epoch's batches read by {@code consumers} consumers through a {@link Multicast}
   * (Data Provider Core's Watcher): each consumer sees every batch once, in order, and a batch
   * buffer is reused only after every consumer has released it (moved past it or closed). With
   * reader threads the window is the ring's slots minus one, so the readers always have a buffer
   * to fill; without, it is 1. The epoch ends for all when every consumer has closed or finished.
   */
  @Override
  public Multicast<NamedBatch> multicast(int consumers) {
    return EngineMulticast.of(engine(), consumers);
  }

  /**
   * The sample indices of this provider's part of epoch {@code epoch}'s drawn order, in order,
   * before the last-batch policy. Independent of the batch iteration.
   *
   * @throws IllegalStateException if this provider does not draw its samples
   */
  public int[] drawnPart(int epoch) {
    return engine().drawnPart(epoch);
  }

  /** The number of samples in the file(s), all parts. */
  public int numSamples() {
    return sources[0].rows();
  }

  /**
   * Sample {@code i} of the source (ignoring shuffle and shard): views of each loaded array's row
   * {@code i}, or new arrays for sources decoded on the fly ({@link RowSource#bytes}).
   */
  @Override
  public Sample sample(int i) {
    if (i < 0 || i >= numSamples()) {
      throw new IndexOutOfBoundsException("sample " + i + " of " + numSamples());
    }
    List<INDArray> rows = new ArrayList<>(sources.length);
    for (RowSource s : sources) {
      rows.add(s.row(i));
    }
    return new Sample(i, names, rows);
  }
}
