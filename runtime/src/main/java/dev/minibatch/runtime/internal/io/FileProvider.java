package dev.minibatch.runtime.internal.io;

import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.engine.Multicast;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.internal.engine.EngineProvider;
import dev.minibatch.runtime.internal.engine.EpochDraws;
import dev.minibatch.runtime.internal.engine.ReaderThreads;
import dev.minibatch.runtime.internal.engine.RowSource;
import dev.minibatch.runtime.internal.engine.RowWriter;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.io.SampleProcessor;
import dev.minibatch.runtime.io.SampleProcessor.Sample;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The base of the file providers: the file's samples are loaded once into {@link RowSource}s whose
 * axis 0 is the sample axis, and batches come from the runtime's batching engine ({@link
 * BatchEngine}: last-batch policies, shuffle and seed, sharding, resumable state, reader threads)
 * — the same engine and semantics as {@code ArrayDataProvider}. A batch stays valid until the
 * iterator moves on ({@link dev.minibatch.runtime.Batch#copy()} keeps one). {@link #samples()}
 * offers the same data one sample at a time.
 */
public abstract class FileProvider extends EngineProvider<NamedBatch> {
  private final String name = getClass().getSimpleName();
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
   * @param stage the stage's name in failures and thread names ({@code minibatch-<stage>-<n>})
   * @param threads the number of reader threads, at least 1
   * @param slots the preallocated batch buffers in the ring, at least 2: readers run up to {@code
   *     slots - 2} batches ahead of the batch the consumer waits for (see {@link ReaderThreads})
   * @param process the process function run on the readers for every sample, or null to copy rows
   * @param origin describes where sample {@code i} comes from, for error messages
   */
  protected record Readers(String stage, int threads, int slots, @Nullable SampleProcessor process,
      IntFunction<String> origin) {
    /** Checks the counts. */
    public Readers {
      new ReaderThreads(stage, threads, slots);
    }
  }

  /**
   * The settings every single-file-format provider's builder adds to {@link ProviderBuilder}: the
   * names of its one data array and one label array (MNIST, CSV and {@code ImageRecordProvider}
   * builders extend it). Defaults {@code "data"} and {@code "softmax_label"}, as MXNet's iterators.
   *
   * @param <S> the concrete builder, returned by every setter
   */
  public abstract static class Builder<S extends Builder<S>> extends ProviderBuilder<S> {
    private String dataName = ArrayDataProvider.DEFAULT_DATA_NAME;
    private String labelName = ArrayDataProvider.DEFAULT_LABEL_NAME;

    /** For subclasses. */
    protected Builder() {}

    /** The data array's name; default {@code "data"}. */
    public S dataName(String name) {
      this.dataName = name;
      return self();
    }

    /** The label array's name; default {@code "softmax_label"}. */
    public S labelName(String name) {
      this.labelName = name;
      return self();
    }

    /** The data array's name as set. */
    protected final String dataName() {
      return dataName;
    }

    /** The label array's name as set. */
    protected final String labelName() {
      return labelName;
    }
  }

  /**
   * A provider over {@code data} and {@code labels} (name → array, in order) with {@code sampling}.
   *
   * @throws IllegalArgumentException for no data, arrays whose sample counts differ, an invalid
   *     batch size or shard, or padding for an unknown name
   */
  protected FileProvider(Sampling sampling, Map<String, INDArray> data, Map<String, INDArray> labels) {
    this(wrap(data), wrap(labels), sampling, null);
  }

  /**
   * A provider over row sources {@code data} and {@code labels} (name → source, in order) with
   * {@code sampling}.
   *
   * @throws IllegalArgumentException for no data, sources whose sample counts differ, an invalid
   *     batch size or shard, or padding for an unknown name
   */
  protected FileProvider(Map<String, RowSource> data, Map<String, RowSource> labels, Sampling sampling) {
    this(data, labels, sampling, null);
  }

  /**
   * As {@link #FileProvider(Map, Map, Sampling)}, with epochs that visit {@code draws} instead of
   * the (shuffled) samples when it is not null; the engine shards the draws and cuts them into
   * batches like any other order.
   *
   * @throws IllegalArgumentException as the other constructor; with draws, also for ROLL_OVER when
   *     a part has fewer draws than a batch (the carried draws would span several epochs)
   */
  protected FileProvider(Map<String, RowSource> data, Map<String, RowSource> labels, Sampling sampling,
      @Nullable EpochDraws draws) {
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
   * Fill batches on reader threads from now on (call from a subclass constructor). Each epoch
   * starts its readers and stops them at its end, on close, or when a newer epoch starts.
   */
  protected final synchronized void useReaders(Readers settings) {
    this.readers = settings;
    rebuild();
  }

  /** Hand every batch to {@code delivery} on the consumer's thread before the iterator returns it. */
  protected final synchronized void useDelivery(Consumer<? super NamedBatch> delivery) {
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

  @Override
  protected final synchronized BatchEngine<NamedBatch> engine() {
    BatchEngine<NamedBatch> e = engine;
    if (e == null) {
      Readers r = readers;
      e = BatchEngine.<NamedBatch>builder(name, sources[0].rows(), sampling)
          .layout(this::layout)
          .batches(NamedBatch::new)
          .rows(r == null ? RowSource.writer(sources) : readerRows(r))
          .draws(draws)
          .readers(r == null ? null : new ReaderThreads(r.stage(), r.threads(), r.slots()))
          .delivery(delivery)
          .build();
      engine = e;
    }
    return e;
  }

  /** The rows as reader threads write them: copies, or the process function, failures naming the sample's origin. */
  private RowWriter readerRows(Readers r) {
    SampleProcessor process = r.process();
    RowWriter copy = RowSource.writer(sources);
    RowWriter rows = process == null ? copy : new ProcessedRowWriter(process, this::sample, this::seed);
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
  public Multicast<NamedBatch> multicast(int consumers) {
    return EngineMulticast.of(engine(), consumers);
  }

  /**
   * The sample indices of this provider's part of epoch {@code epoch}'s drawn order, in order,
   * before the last-batch policy. Independent of the batch iteration.
   *
   * @throws IllegalStateException if this provider does not draw its samples
   */
  protected final int[] drawnPart(int epoch) {
    return engine().drawnPart(epoch);
  }

  /** The number of samples in the file(s), all parts. */
  @Override
  public int numSamples() {
    return sources[0].rows();
  }

  /**
   * Sample {@code i} of the source (ignoring shuffle and shard): views of each loaded array's row
   * {@code i}, or new arrays for sources decoded on the fly ({@link RowSource#bytes}).
   */
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

  /**
   * The samples in source order as a {@link Reader}, so the reader decorators and the pipeline
   * engine apply: {@code xmap(ParallelOptions, fn)} for work on worker threads (deterministic per
   * (seed, epoch, index) for any number of workers), {@code map(fn)} on the consumer's thread,
   * {@code Multicast} for several consumers, {@code FeedingProvider} to batch the results again.
   * Every pass starts from sample 0; like {@link #samples()}, it ignores shuffle, shard and
   * last-batch settings, which belong to batching.
   */
  public Reader<Sample> reader() {
    return () -> PipelineIterator.of(samples().iterator());
  }

  /**
   * The samples in source order, one at a time: a plain {@link Iterable} that a reader pipeline can
   * consume. It ignores shuffle, shard and last-batch settings, which belong to batching.
   */
  public Iterable<Sample> samples() {
    return () -> new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < numSamples();
      }

      @Override
      public Sample next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return sample(next++);
      }
    };
  }
}
