package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Readers.Tuple;
import dev.minibatch.shape.Shape;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * A provider of {@link NamedBatch}es fed by a reader of {@link Tuple}s through a feeding map
 * (Paddle's {@code feeding={"image": 0, "label": 1}}): each provided name takes one column of the
 * tuple; a column may feed several names or none.
 *
 * <pre>{@code
 * Reader<Tuple> rows = Readers.compose(images, labels);          // (float[784], int)
 * try (FeedingProvider p = FeedingProvider.builder(rows)
 *     .data("image", 0).label("label", 1)
 *     .batchSize(128).lastBatch(LastBatch.PAD_WRAP)
 *     .build()) {
 *   for (NamedBatch b : p) { ... b.get("image") ... }
 * }
 * }</pre>
 *
 * <p>Shapes and element types come from the declarations, or, where not declared, from the first
 * tuple, which {@link Builder#build()} reads once (a sample's shape is needed before the first
 * epoch, for {@link #provideData()}). A column value may be a boxed number (a scalar), a primitive
 * array of any rank (or flat with the shape's element count), or an INDArray; a value of another
 * shape fails with the name, the sample index and both shapes.
 *
 * <p>Streaming: epoch {@code e} is the reader's pass {@code e} ({@link Reader#iterator(int)}), in
 * the reader's order (shuffle the reader for a random order: a seeded {@code reader.shuffle} gives
 * every epoch its own order, the same each time that epoch is read); every {@link
 * dev.minibatch.LastBatch} policy but PAD_CONTINUE and sharding by {@code numParts} / {@code
 * partIndex} (every {@code numParts}-th sample) apply. Batches live in a ring of two reused buffers:
 * a batch is valid until the iterator moves on. Runs on the runtime's batching engine as a stream:
 * closing the provider, or starting a new epoch, closes the pass in progress and so stops the
 * reader's threads at once.
 *
 * <p>Resumable by replay: {@link #saveState()} records the epoch, the batches delivered and the
 * samples ROLL_OVER carried; {@link #restoreState} reads the reader's pass of that epoch again from
 * its start, past the delivered batches (the epoch before too, to its end, when samples were
 * carried), so it costs a read of the epoch up to the position. The reader must give the same
 * samples in the same order whenever a pass is started for the same epoch.
 */
public final class FeedingProvider implements BatchProvider<NamedBatch>, Resumable {
  private final BatchEngine<NamedBatch> engine;

  private FeedingProvider(BatchEngine<NamedBatch> engine) {
    this.engine = engine;
  }

  /** A builder reading {@code reader}. */
  public static Builder builder(Reader<Tuple> reader) {
    return new Builder(reader);
  }

  @Override
  public int batchSize() {
    return engine.batchSize();
  }

  @Override
  public List<DataDesc> provideData() {
    return engine.layout().data();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return engine.layout().label();
  }

  @Override
  public BatchIterator<NamedBatch> iterator() {
    return engine.iterator();
  }

  /** The epoch in progress and its delivered batches, or the next epoch; see the class comment. */
  @Override
  public IterationState saveState() {
    return engine.saveState();
  }

  /**
   * Continues from {@code state} at the next iteration, reading the reader's pass of its epoch
   * again up to its position now.
   *
   * @throws IllegalArgumentException if the state was saved with other settings or by another kind
   *     of provider, or its position lies beyond its epoch
   * @throws IllegalStateException if the reader cannot be replayed (it refuses a second pass,
   *     hands back an iterator it gave before, or gives other samples than when the state was saved)
   */
  @Override
  public void restoreState(IterationState state) {
    engine.restoreState(state);
  }

  /** Forgets the samples carried over by ROLL_OVER and ends the iteration in progress. */
  public void reset() {
    engine.reset();
  }

  @Override
  public void close() {
    engine.close();
  }

  /** Settings of a {@link FeedingProvider}: the feeding map plus the shared provider settings. */
  public static final class Builder extends ProviderBuilder<Builder> {
    private final Reader<Tuple> reader;
    private final Map<String, Feed> feeds = new LinkedHashMap<>();

    private Builder(Reader<Tuple> reader) {
      this.reader = reader;
    }

    /** Feeds data {@code name} from tuple column {@code column}; shape and type from the first tuple. */
    public Builder data(String name, int column) {
      return feed(new Feed(name, column, Role.DATA, null, null));
    }

    /** Feeds data {@code name} from {@code column}, with its per-sample shape and element type. */
    public Builder data(String name, int column, Shape sampleShape, DType dtype) {
      return feed(new Feed(name, column, Role.DATA, sampleShape, dtype));
    }

    /** Feeds label {@code name} from tuple column {@code column}; shape and type from the first tuple. */
    public Builder label(String name, int column) {
      return feed(new Feed(name, column, Role.LABEL, null, null));
    }

    /** Feeds label {@code name} from {@code column}, with its per-sample shape and element type. */
    public Builder label(String name, int column, Shape sampleShape, DType dtype) {
      return feed(new Feed(name, column, Role.LABEL, sampleShape, dtype));
    }

    /**
     * Paddle's feeding map: every entry feeds a name from a column; the names in {@code labels} are
     * labels, the others data. Entries keep the map's iteration order.
     */
    public Builder feeding(Map<String, Integer> feeding, String... labels) {
      List<String> labelNames = List.of(labels);
      for (String l : labelNames) {
        if (!feeding.containsKey(l)) {
          throw new IllegalArgumentException("label '" + l + "' is not in the feeding map " + feeding);
        }
      }
      feeding.forEach((name, column) -> feed(new Feed(name, column,
          labelNames.contains(name) ? Role.LABEL : Role.DATA, null, null)));
      return this;
    }

    private Builder feed(Feed f) {
      if (f.column < 0) {
        throw new IllegalArgumentException("'" + f.name + "': column must be >= 0, got " + f.column);
      }
      if (feeds.putIfAbsent(f.name, f) != null) {
        throw new IllegalArgumentException("'" + f.name + "' is fed twice");
      }
      return this;
    }

    /**
     * The provider. Reads the first tuple of the reader if a fed name has no declared shape.
     *
     * @throws IllegalArgumentException if nothing is fed, no data name is fed, a setting is invalid,
     *     or the first tuple lacks a fed column
     */
    public FeedingProvider build() {
      if (feeds.isEmpty()) {
        throw new IllegalArgumentException("feed at least one name: data(name, column)");
      }
      List<Feed> resolved = resolve();
      List<Feed> ordered = new ArrayList<>();
      resolved.stream().filter(f -> f.role == Role.DATA).forEach(ordered::add);
      resolved.stream().filter(f -> f.role == Role.LABEL).forEach(ordered::add);
      TupleCollator collator = new TupleCollator(ordered);
      BatchEngine<NamedBatch> engine = BatchEngine.<Tuple, NamedBatch>streaming("FeedingProvider", reader::iterator,
          Sampling.resolve(settings()), collator).layout(batchSize -> layout(ordered, batchSize))
          .batches(NamedBatch::new).build();
      return new FeedingProvider(engine);
    }

    private List<Feed> resolve() {
      boolean complete = feeds.values().stream().allMatch(f -> f.shape != null && f.dtype != null);
      if (complete) {
        return new ArrayList<>(feeds.values());
      }
      Tuple first;
      // Pass 0, what epoch 0 reads; reader.iterator() would count a pass of a shuffled reader.
      try (PipelineIterator<Tuple> it = reader.iterator(0)) {
        if (!it.hasNext()) {
          throw new IllegalArgumentException("the reader is empty: cannot infer the shapes of "
              + feeds.keySet() + "; declare them with data(name, column, shape, dtype)");
        }
        first = it.next();
      } catch (NoSuchElementException e) {
        throw new IllegalArgumentException("the reader is empty", e);
      }
      List<Feed> out = new ArrayList<>();
      for (Feed f : feeds.values()) {
        if (f.column >= first.size()) {
          throw new IllegalArgumentException("'" + f.name + "' is fed from column " + f.column
              + " but the first tuple has " + first.size() + " columns: " + first);
        }
        Object v = first.get(f.column);
        Shape shape = f.shape != null ? f.shape : ColumnTypes.shapeOf(f.name, v);
        DType dtype = f.dtype != null ? f.dtype : ColumnTypes.dtypeOf(f.name, v);
        out.add(new Feed(f.name, f.column, f.role, shape, dtype));
      }
      return out;
    }

    private static BatchLayout layout(List<Feed> feeds, int batchSize) {
      List<DataDesc> data = new ArrayList<>();
      List<DataDesc> label = new ArrayList<>();
      for (Feed f : feeds) {
        DataDesc d = DataDesc.of(f.name, batchSize, f.shape(), f.dtype(), f.role);
        (f.role == Role.DATA ? data : label).add(d);
      }
      return BatchLayout.of(data, label);
    }
  }

  /** One entry of the feeding map. */
  static final class Feed {
    final String name;
    final int column;
    final Role role;
    final @Nullable Shape shape;
    final @Nullable DType dtype;

    Feed(String name, int column, Role role, @Nullable Shape shape, @Nullable DType dtype) {
      this.name = name;
      this.column = column;
      this.role = role;
      this.shape = shape;
      this.dtype = dtype;
    }

    Shape shape() {
      if (shape == null) {
        throw new IllegalStateException("unresolved shape of " + name);
      }
      return shape;
    }

    DType dtype() {
      if (dtype == null) {
        throw new IllegalStateException("unresolved dtype of " + name);
      }
      return dtype;
    }
  }
}
