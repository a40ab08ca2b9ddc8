package dev.minibatch.runtime.io;

import dev.minibatch.DataDesc;
import dev.minibatch.LastBatch;
import dev.minibatch.Role;
import dev.minibatch.runtime.ArrayDataProvider;
import dev.minibatch.runtime.BatchBuffers;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.Sampling;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.runtime.sampling.EpochPlan;
import dev.minibatch.runtime.sampling.PlannedEpoch;
import dev.minibatch.runtime.sampling.SampleScheduler;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import dev.minibatch.runtime.pipeline.Multicast;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The base of the file providers: the file's samples are loaded once into {@link RowSource}s whose
 * axis 0 is the sample axis, and batches are filled with the runtime's shared {@link
 * SampleScheduler} (last-batch policies, shuffle and seed, sharding, resumable state) into a ring
 * of two reused {@link BatchBuffers} — the same machinery and semantics as {@link
 * ArrayDataProvider}. A batch stays valid until the iterator has moved two batches on ({@link
 * dev.minibatch.runtime.Batch#copy()} keeps one). {@link #samples()} offers the same data one sample
 * at a time.
 */
public abstract class FileProvider implements BatchProvider<NamedBatch>, Resumable {
  private static final int SLOTS = 2;

  private final List<String> names = new ArrayList<>();
  private final RowSource[] sources;
  private final double[] padValues;
  private final SampleScheduler scheduler;
  private final BatchLayout layout;
  private final BatchBuffers<NamedBatch> buffers;
  private final int[] indexBuffer;
  private final @Nullable EpochOrder order;
  /** With an order: the scheduler over positions in each epoch's drawn order. */
  private final @Nullable SampleScheduler drawScheduler;
  /** The draws of the last two epochs computed, by epoch (arrays are never written once made). */
  private int drawsEpochA = Integer.MIN_VALUE;
  private int @Nullable [] drawsA;
  private int drawsEpochB = Integer.MIN_VALUE;
  private int @Nullable [] drawsB;
  private volatile boolean closed;
  private @Nullable Readers readers;
  private @Nullable List<BatchBuffers.Slot<NamedBatch>> readerSlots;
  private final List<BatchBuffers<NamedBatch>> readerBuffers = new ArrayList<>();
  private ParallelEpoch.@Nullable Handle parallel;
  private @Nullable Consumer<? super NamedBatch> delivery;

  /**
   * Reader threads that fill the batches (Data Provider Core's Readers).
   *
   * @param stage the stage's name in failures and thread names ({@code minibatch-<stage>-<n>})
   * @param threads the number of reader threads, at least 1
   * @param slots the preallocated batch buffers in the ring, at least 2: readers run up to {@code
   *     slots - 1} batches ahead of the consumer
   * @param process the process function run on the readers for every sample, or null to copy rows
   * @param origin describes where sample {@code i} comes from, for error messages
   */
  protected record Readers(String stage, int threads, int slots, @Nullable SampleProcessor process,
      IntFunction<String> origin) {
    /** Checks the counts. */
    public Readers {
      if (threads < 1) {
        throw new IllegalArgumentException("readers must be >= 1, got " + threads);
      }
      if (slots < 2) {
        throw new IllegalArgumentException("the ring needs at least 2 batch buffers, got " + slots);
      }
    }
  }

  /**
   * An epoch order that replaces the shared scheduler's, for providers that draw their samples
   * themselves (class-probability sampling). It must be a pure function of the epoch number.
   */
  protected interface EpochOrder {
    /** Draws per epoch. */
    int length();

    /** The seed the order was made with. */
    long seed();

    /** Writes epoch {@code epoch}'s sample indices into {@code out[0, length())}. */
    void fill(int epoch, int[] out);
  }

  /**
   * A provider over {@code data} and {@code labels} (name → array, in order) with {@code sampling}.
   *
   * @throws IllegalArgumentException as {@link ArrayDataProvider.Builder#build()}
   */
  protected FileProvider(Sampling sampling, Map<String, INDArray> data, Map<String, INDArray> labels) {
    this(wrap(data), wrap(labels), sampling);
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
   * As {@link #FileProvider(Map, Map, Sampling)}, with batches cut from {@code order}'s draws
   * instead of the shared scheduler's epochs when it is not null. The draws go through the same
   * {@link SampleScheduler} cutting as every other provider: a scheduler over the positions {@code
   * [0, order.length())} of each epoch's drawn order, unshuffled (the order is already random),
   * sharded into the contiguous parts {@code [floor(p*n/k), floor((p+1)*n/k))} of those positions
   * and cut by the last-batch policy; positions are then mapped to sample indices. So PAD_WRAP
   * wraps to the start of the part's draws, PAD_CONSTANT pads with sample index -1, and ROLL_OVER
   * carries the leftover draws of one epoch to the front of the next.
   *
   * @throws IllegalArgumentException as the other constructor; with an order, also for ROLL_OVER
   *     when a part has fewer draws than a batch (the carried draws would span several epochs)
   */
  protected FileProvider(Map<String, RowSource> data, Map<String, RowSource> labels, Sampling sampling,
      @Nullable EpochOrder order) {
    this.order = order;
    if (data.isEmpty()) {
      throw new IllegalArgumentException("empty data: add at least one data array");
    }
    List<RowSource> all = new ArrayList<>();
    List<Role> roles = new ArrayList<>();
    data.forEach((k, v) -> {
      names.add(k);
      all.add(v);
      roles.add(Role.DATA);
    });
    labels.forEach((k, v) -> {
      if (names.contains(k)) {
        throw new IllegalArgumentException("the name '" + k + "' is used twice; names must be unique across data and labels");
      }
      names.add(k);
      all.add(v);
      roles.add(Role.LABEL);
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
    for (String name : sampling.padding().keySet()) {
      if (!names.contains(name)) {
        throw new IllegalArgumentException("padding set for '" + name + "', which is not provided; names are " + names);
      }
    }
    if (order != null) {
      // The data scheduler only counts samples; the draw scheduler plans the epochs.
      this.scheduler = new SampleScheduler(n, new Sampling(sampling.batchSize(), sampling.lastBatch(), false, order.seed(), 1, 0,
          false, sampling.padding(), sampling.dataPadding(), sampling.labelPadding()));
      this.drawScheduler = new SampleScheduler(order.length(), new Sampling(sampling.batchSize(), sampling.lastBatch(), false,
          order.seed(), sampling.numParts(), sampling.partIndex(), sampling.evenShards(), sampling.padding(),
          sampling.dataPadding(), sampling.labelPadding()));
      if (sampling.lastBatch() == LastBatch.ROLL_OVER && drawScheduler.partSize() < drawScheduler.batchSize()) {
        throw new IllegalArgumentException("lastBatch ROLL_OVER with class-probability draws needs at least one batch of draws "
            + "per part: part " + sampling.partIndex() + " of " + sampling.numParts() + " has " + drawScheduler.partSize()
            + " draws per epoch, the batch size is " + drawScheduler.batchSize());
      }
    } else {
      this.scheduler = new SampleScheduler(n, sampling);
      this.drawScheduler = null;
    }
    int batch = active().batchSize();
    this.sources = all.toArray(new RowSource[0]);
    this.padValues = new double[sources.length];
    List<DataDesc> dataDescs = new ArrayList<>();
    List<DataDesc> labelDescs = new ArrayList<>();
    for (int i = 0; i < sources.length; i++) {
      RowSource s = sources[i];
      Role role = roles.get(i);
      (role == Role.DATA ? dataDescs : labelDescs).add(DataDesc.of(names.get(i), batch, s.sampleShape(), s.dtype(), role));
      padValues[i] = sampling.paddingFor(names.get(i), role == Role.LABEL);
    }
    this.layout = BatchLayout.of(dataDescs, labelDescs);
    this.buffers = new BatchBuffers<>(layout, SLOTS, NamedBatch::new);
    this.indexBuffer = new int[batch];
  }

  private static Map<String, RowSource> wrap(Map<String, INDArray> arrays) {
    Map<String, RowSource> out = new LinkedHashMap<>();
    arrays.forEach((k, v) -> out.put(k, RowSource.of(v)));
    return out;
  }

  @Override
  public int batchSize() {
    return active().batchSize();
  }

  /** The scheduler that plans the epochs: the draw scheduler with an order, else the data's. */
  private SampleScheduler active() {
    return drawScheduler != null ? drawScheduler : scheduler;
  }

  @Override
  public List<DataDesc> provideData() {
    return layout.data();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return layout.label();
  }

  /** The names and shapes of the batch arrays. */
  public BatchLayout layout() {
    return layout;
  }

  /**
   * Fill batches on reader threads from now on (call from a subclass constructor). Each epoch
   * starts its readers and stops them at its end, on close, or when a newer epoch starts.
   */
  protected final void useReaders(Readers settings) {
    this.readers = settings;
  }

  /** Hand every batch to {@code delivery} on the consumer's thread before the iterator returns it. */
  protected final void useDelivery(Consumer<? super NamedBatch> delivery) {
    this.delivery = delivery;
  }

  @Override
  public BatchIterator<NamedBatch> iterator() {
    checkOpen();
    if (readers != null) {
      return parallelEpoch(true);
    }
    BatchIterator<NamedBatch> it;
    if (order == null) {
      it = new PlannedEpoch<>(scheduler.beginEpoch(), this::checkOpen, (plan, j) -> fill(plan, j, null));
    } else {
      DrawnEpoch d = beginDrawn();
      it = new PlannedEpoch<>(d.plan(), this::checkOpen, (plan, j) -> fill(plan, j, d));
    }
    Consumer<? super NamedBatch> d = delivery;
    return d == null ? it : new BatchIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public NamedBatch next() {
        NamedBatch b = it.next();
        d.accept(b);
        return b;
      }

      @Override
      public void close() {
        it.close();
      }
    };
  }

  /**
   * The next epoch's batches read by {@code consumers} consumers through a {@link Multicast}
   * (Data Provider Core's Watcher): each consumer sees every batch once, in order, and a batch
   * buffer is reused only after every consumer has released it (moved past it or closed). With
   * reader threads the window is the ring's slots minus one, so the readers always have a buffer
   * to fill; without, it is 1. The epoch ends for all when every consumer has closed or finished.
   */
  public Multicast<NamedBatch> multicast(int consumers) {
    checkOpen();
    Readers r = readers;
    if (r == null) {
      return Multicast.<NamedBatch>builder().consumers(consumers).window(1).build(iterator());
    }
    ParallelEpoch epoch = parallelEpoch(false);
    return Multicast.<NamedBatch>builder().consumers(consumers).window(r.slots() - 1)
        .onRelease(b -> epoch.releaseOldest()).build(epoch);
  }

  private synchronized ParallelEpoch parallelEpoch(boolean autoRelease) {
    Readers r = java.util.Objects.requireNonNull(readers);
    if (parallel != null) {
      // The previous epoch's readers write into the same buffers: stop them first.
      parallel.close();
      parallel = null;
    }
    if (readerSlots == null) {
      List<BatchBuffers.Slot<NamedBatch>> slots = new ArrayList<>();
      for (int s = 0; s < r.slots(); s++) {
        BatchBuffers<NamedBatch> b = new BatchBuffers<>(layout, 1, NamedBatch::new);
        readerBuffers.add(b);
        slots.add(b.next());
      }
      readerSlots = slots;
    }
    ParallelEpoch.Cursor cursor;
    if (order == null) {
      cursor = planCursor(scheduler.beginEpoch(), null);
    } else {
      DrawnEpoch d = beginDrawn();
      cursor = planCursor(d.plan(), d);
    }
    long seed = order != null ? order.seed() : scheduler.seed();
    ParallelEpoch.Job job = new ParallelEpoch.Job(r.stage(), cursor, readerSlots, sources, padValues, active().batchSize(),
        r.threads(), seed, r.process(), this::sample, r.origin());
    ParallelEpoch e = new ParallelEpoch(job, autoRelease, this::checkOpen, delivery);
    parallel = e.handle();
    return e;
  }

  private ParallelEpoch.Cursor planCursor(EpochPlan plan, @Nullable DrawnEpoch drawnEpoch) {
    boolean constantPad = scheduler.sampling().lastBatch() == LastBatch.PAD_CONSTANT;
    return new ParallelEpoch.Cursor() {
      @Override
      public int epoch() {
        return plan.epoch();
      }

      @Override
      public int first() {
        return plan.position();
      }

      @Override
      public int batchCount() {
        return plan.batchCount();
      }

      @Override
      public int rows(int j) {
        return plan.rows(j);
      }

      @Override
      public int pad(int j) {
        return plan.pad(j);
      }

      @Override
      public int copied(int j) {
        return constantPad ? plan.rows(j) - plan.pad(j) : plan.rows(j);
      }

      @Override
      public void indices(int j, int[] out) {
        plan.indices(j, out);
        if (drawnEpoch != null) {
          drawnEpoch.map(j, out, plan.rows(j));
        }
      }

      @Override
      public void delivered(int j) {
        plan.next();
      }

      @Override
      public void check() {
        plan.hasNext();
      }
    };
  }

  @Override
  public IterationState saveState() {
    if (drawScheduler == null) {
      return scheduler.saveState();
    }
    IterationState s = drawScheduler.saveState();
    return new IterationState(s.seed(), s.epoch(), s.position(), s.carried(), DRAWN + s.settings());
  }

  @Override
  public void restoreState(IterationState state) {
    checkOpen();
    if (drawScheduler == null) {
      scheduler.restoreState(state);
      return;
    }
    EpochOrder o = java.util.Objects.requireNonNull(order);
    if (!state.settings().startsWith(DRAWN) || state.seed() != o.seed()) {
      throw new IllegalArgumentException("state " + state + " was not saved by a provider drawing with seed " + o.seed());
    }
    drawScheduler.restoreState(new IterationState(state.seed(), state.epoch(), state.position(), state.carried(),
        state.settings().substring(DRAWN.length())));
  }

  private static final String DRAWN = "draws=class-probability,";

  /**
   * One epoch of draws: the draw scheduler's plan over positions, and the drawn orders its
   * positions refer to: the first {@code carried} entries of the plan's stream (ROLL_OVER's
   * carried draws) are positions in the previous epoch's order, the rest in this epoch's.
   */
  private record DrawnEpoch(EpochPlan plan, int carried, int @Nullable [] previous, int[] current, int batchSize) {
    /** Maps the positions of batch {@code j}, {@code out[0, rows)}, to sample indices in place. */
    void map(int j, int[] out, int rows) {
      int base = j * batchSize;
      for (int r = 0; r < rows; r++) {
        int pos = out[r];
        if (pos != EpochPlan.CONSTANT_PAD) {
          out[r] = (base + r < carried ? java.util.Objects.requireNonNull(previous) : current)[pos];
        }
      }
    }
  }

  /** Starts the next drawn epoch (or resumes the restored one), superseding any in progress. */
  private synchronized DrawnEpoch beginDrawn() {
    SampleScheduler s = java.util.Objects.requireNonNull(drawScheduler);
    s.supersede();
    IterationState next = s.saveState();
    int carried = next.carried().length;
    int[] previous = carried > 0 ? draws(next.epoch() - 1) : null;
    int[] current = draws(next.epoch());
    EpochPlan plan = s.beginEpoch();
    return new DrawnEpoch(plan, carried, previous, current, s.batchSize());
  }

  /**
   * The sample indices of this provider's part of epoch {@code epoch}'s drawn order, in order,
   * before the last-batch policy: the draws {@code [floor(p*n/k), floor((p+1)*n/k))} (or the even
   * shard), cut by the same scheduler code as the batches. Independent of the batch iteration.
   *
   * @throws IllegalStateException if this provider does not draw its samples
   */
  protected final int[] drawnPart(int epoch) {
    EpochOrder o = order;
    SampleScheduler s = drawScheduler;
    if (o == null || s == null) {
      throw new IllegalStateException("this " + getClass().getSimpleName() + " visits its samples in source order, it does "
          + "not draw them (no class probabilities given)");
    }
    Sampling t = s.sampling();
    // One batch holding the whole part, nothing padded or carried: the part's positions in order.
    SampleScheduler whole = new SampleScheduler(o.length(), new Sampling(0, LastBatch.PARTIAL, false, o.seed(),
        t.numParts(), t.partIndex(), t.evenShards(), t.padding(), t.dataPadding(), t.labelPadding()));
    whole.restoreState(new IterationState(o.seed(), epoch, 0, new int[0], whole.saveState().settings()));
    EpochPlan plan = whole.beginEpoch();
    int[] positions = new int[plan.rows(0)];
    plan.indices(0, positions);
    int[] d = new int[o.length()];
    o.fill(epoch, d);
    for (int i = 0; i < positions.length; i++) {
      positions[i] = d[positions[i]];
    }
    return positions;
  }

  /** The drawn order of {@code epoch}, from a cache of the last two epochs' orders. */
  private synchronized int[] draws(int epoch) {
    if (drawsA != null && drawsEpochA == epoch) {
      return drawsA;
    }
    if (drawsB != null && drawsEpochB == epoch) {
      return drawsB;
    }
    EpochOrder o = java.util.Objects.requireNonNull(order);
    int[] d = new int[o.length()];
    o.fill(epoch, d);
    drawsEpochB = drawsEpochA;
    drawsB = drawsA;
    drawsEpochA = epoch;
    drawsA = d;
    return d;
  }

  /**
   * Forgets samples carried over by {@link dev.minibatch.LastBatch#ROLL_OVER} and ends the
   * iteration in progress (as {@link ArrayDataProvider#reset()}).
   */
  public void reset() {
    active().reset();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      active().supersede();
      ParallelEpoch.Handle p;
      synchronized (this) {
        p = parallel;
        parallel = null;
      }
      boolean readersStopped = true;
      if (p != null) {
        p.close();
        readersStopped = p.stopped();
      }
      buffers.close();
      if (readersStopped) {
        // A reader stuck in user code could still write: then the garbage collector frees them.
        readerBuffers.forEach(BatchBuffers::close);
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this " + getClass().getSimpleName() + " is closed");
    }
  }

  private NamedBatch fill(EpochPlan plan, int j, @Nullable DrawnEpoch drawnEpoch) {
    int rows = plan.rows(j);
    int pad = plan.pad(j);
    plan.indices(j, indexBuffer);
    if (drawnEpoch != null) {
      drawnEpoch.map(j, indexBuffer, rows);
    }
    boolean constantPad = scheduler.sampling().lastBatch() == LastBatch.PAD_CONSTANT;
    return fillRows(rows, pad, constantPad ? rows - pad : rows);
  }

  /** Fills a slot with the samples {@code indexBuffer[0, copied)} and publishes {@code rows} rows. */
  private NamedBatch fillRows(int rows, int pad, int copied) {
    BatchBuffers.Slot<NamedBatch> slot = buffers.next();
    for (int i = 0; i < sources.length; i++) {
      sources[i].copy(indexBuffer, copied, slot, i);
      if (copied < rows) {
        slot.fill(i, copied, rows, padValues[i]);
      }
    }
    long[] idx = slot.sampleIndices();
    for (int r = 0; r < rows; r++) {
      idx[r] = indexBuffer[r];
    }
    return slot.publish(rows, pad);
  }

  /** The number of samples in the file(s), all parts. */
  public int numSamples() {
    return scheduler.numSamples();
  }

  /**
   * The number of samples this provider's part visits per epoch (before padding); with drawn
   * epochs, the number of draws in this part.
   */
  public int partSize() {
    return active().partSize();
  }

  /** The shuffle seed in use (with drawn epochs, the draws' seed). */
  public long seed() {
    return active().seed();
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
