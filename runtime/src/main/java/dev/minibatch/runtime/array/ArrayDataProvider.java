package dev.minibatch.runtime.array;

import dev.minibatch.DataDesc;
import dev.minibatch.LastBatch;
import dev.minibatch.Role;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.spi.EngineProvider;
import dev.minibatch.runtime.internal.engine.RowSource;
import dev.minibatch.runtime.spi.DTypes;
import dev.minibatch.runtime.internal.nd4j.JavaArrays;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.shape.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A provider over in-memory arrays whose axis 0 is the sample axis (MXNet.jl's {@code
 * ArrayDataProvider}, MXNet's {@code NDArrayIter}). Any number of named data and label arrays, kept
 * in declared order; every {@link LastBatch} policy; shuffle with a seed; sharding; resumable.
 *
 * <pre>{@code
 * try (ArrayDataProvider p = ArrayDataProvider.builder()
 *     .data(features).label(labels)          // names "data" and "softmax_label"
 *     .batchSize(128).shuffle(true).seed(42)
 *     .lastBatch(LastBatch.PAD_WRAP)
 *     .build()) {
 *   for (NamedBatch b : p) { ... b.get("data") ... }
 * }
 * }</pre>
 *
 * <p>A front end of the runtime's batching engine ({@link BatchEngine}): batches are copied into a
 * ring of two reused buffers with one bulk copy per run of consecutive samples, so a batch is valid
 * until the iterator moves on ({@link dev.minibatch.runtime.Batch#copy()} keeps one). One iteration
 * at a time: a second thread starting an iteration while one is unfinished gets an {@link
 * IllegalStateException}, never batches with wrong rows.
 *
 * <p>{@link ProviderBuilder#readers(int) readers(n)} copies rows on up to {@code n} reader threads
 * (named {@code minibatch-array-reader-<n>}) instead of the consumer's thread, each writing whole
 * batches ahead of the consumer, and a consumer that would wait writes the next batch itself. As
 * the consumer is a writer too, at most one thread fewer than the machine's processors is started
 * (at least one): on two cores, {@code readers(2)} is one reader thread and the consumer. The
 * batches are the same for any number of threads.
 */
public final class ArrayDataProvider extends EngineProvider<NamedBatch> {
  /** The name of a single unnamed data array (MXNet's default). */
  public static final String DEFAULT_DATA_NAME = "data";
  /** The name of a single unnamed label array (MXNet's default). */
  public static final String DEFAULT_LABEL_NAME = "softmax_label";

  private final BatchEngine<NamedBatch> engine;

  private ArrayDataProvider(Builder b, Sampling sampling) {
    if (b.arrays.isEmpty()) {
      throw new IllegalArgumentException("empty data: add at least one data array");
    }
    List<Named> arrays = new ArrayList<>(b.arrays);
    arrays.sort((x, y) -> x.role.compareTo(y.role));
    Named first = arrays.get(0);
    if (first.role != Role.DATA) {
      throw new IllegalArgumentException("only labels were given; add at least one data array");
    }
    long n = first.array.rank() == 0 ? 0 : first.array.size(0);
    for (Named a : arrays) {
      if (a.array.rank() == 0) {
        throw new IllegalArgumentException(a.describe() + " is a scalar; axis 0 must be the sample axis");
      }
      if (a.array.size(0) != n) {
        throw new IllegalArgumentException("sample counts differ: " + first.describe() + " has " + n
            + " samples (axis 0) but " + a.describe() + " has " + a.array.size(0));
      }
    }
    if (n == 0) {
      throw new IllegalArgumentException("empty data: " + first.describe() + " has 0 samples");
    }
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(first.describe() + " has " + n + " samples; at most " + Integer.MAX_VALUE + " are supported");
    }
    RowSource[] sources = new RowSource[arrays.size()];
    for (int i = 0; i < sources.length; i++) {
      sources[i] = RowSource.of(arrays.get(i).array);
    }
    this.engine = BatchEngine.<NamedBatch>builder("ArrayDataProvider", (int) n, sampling)
        .layout(batch -> layout(arrays, batch))
        .batches(NamedBatch::new)
        .rows(RowSource.writer(sources))
        .copyingReaders("array-reader")
        .build();
  }

  private static BatchLayout layout(List<Named> arrays, int batch) {
    List<DataDesc> data = new ArrayList<>();
    List<DataDesc> label = new ArrayList<>();
    for (Named a : arrays) {
      Shape sample = Shape.of(a.array.shape()).dropFirst();
      DataDesc d = DataDesc.of(a.name, batch, sample, DTypes.fromNd4j(a.array.dataType()), a.role);
      (a.role == Role.DATA ? data : label).add(d);
    }
    return BatchLayout.of(data, label);
  }

  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a provider configured by {@code spec} (handy from Kotlin: {@code create { it.data(x) }}). */
  public static ArrayDataProvider create(Consumer<Builder> spec) {
    Builder b = builder();
    spec.accept(b);
    return b.build();
  }

  @Override
  protected BatchEngine<NamedBatch> engine() {
    return engine;
  }

  private static final class Named {
    final String name;
    final Role role;
    final INDArray array;

    Named(String name, Role role, INDArray array) {
      this.name = name;
      this.role = role;
      this.array = array;
    }

    String describe() {
      return (role == Role.DATA ? "data" : "label") + " '" + name + "' " + Arrays.toString(array.shape());
    }
  }

  /** Builds {@link ArrayDataProvider}s. Arrays keep their declared order within data and labels. */
  public static final class Builder extends ProviderBuilder<Builder> {
    private final List<Named> arrays = new ArrayList<>();

    private Builder() {}

    /** Adds the data array named {@value #DEFAULT_DATA_NAME}. */
    public Builder data(INDArray array) {
      return data(DEFAULT_DATA_NAME, array);
    }

    /** Adds the label array named {@value #DEFAULT_LABEL_NAME}. */
    public Builder label(INDArray array) {
      return label(DEFAULT_LABEL_NAME, array);
    }

    /** Adds a named data array; axis 0 is the sample axis. */
    public Builder data(String name, INDArray array) {
      return add(name, Role.DATA, array);
    }

    /** Adds a named label array; axis 0 is the sample axis. */
    public Builder label(String name, INDArray array) {
      return add(name, Role.LABEL, array);
    }

    /**
     * Adds a named data array given as a Java primitive array of any rank ({@code float[][]}, {@code
     * int[]}, …), copied once into an INDArray of the matching type.
     */
    public Builder data(String name, Object primitiveArray) {
      return add(name, Role.DATA, JavaArrays.toINDArray(primitiveArray, "data '" + name + "'"));
    }

    /** Adds a named label array given as a Java primitive array of any rank. */
    public Builder label(String name, Object primitiveArray) {
      return add(name, Role.LABEL, JavaArrays.toINDArray(primitiveArray, "label '" + name + "'"));
    }

    private Builder add(String name, Role role, INDArray array) {
      if (name.isEmpty()) {
        throw new IllegalArgumentException("array names must not be empty");
      }
      for (Named a : arrays) {
        if (a.name.equals(name)) {
          throw new IllegalArgumentException("the name '" + name + "' is already used by " + a.describe()
              + "; names must be unique across data and labels");
        }
      }
      arrays.add(new Named(name, role, array));
      return this;
    }

    /**
     * Builds the provider.
     *
     * @throws IllegalArgumentException for no data, arrays whose sample counts differ, an invalid
     *     batch size or shard, or padding for an unknown name
     */
    public ArrayDataProvider build() {
      return new ArrayDataProvider(this, Sampling.resolve(settings()));
    }
  }
}
