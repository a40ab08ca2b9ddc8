package dev.minibatch.runtime.engine;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.internal.engine.GuardedIterator;
import dev.minibatch.runtime.internal.engine.IterationGuard;
import dev.minibatch.runtime.internal.pipeline.CloseAll;
import dev.minibatch.runtime.internal.pipeline.ThreadCleaner;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Several providers read in step and merged into one batch (MXNet's {@code PrefetchingIter} with
 * {@code rename_data} / {@code rename_label}): batch {@code k} holds the data arrays of every
 * provider's batch {@code k}, in the order the providers were added, then their label arrays, each
 * under its name or the name it was renamed to. The arrays are the providers' own (no copy); the
 * merged batch is valid as long as the providers' batches are, i.e. until the iterator has moved one
 * batch on. Its pad and sample indices are the first provider's.
 *
 * <p>By default each provider is wrapped in a {@link PrefetchingProvider}, so every provider prepares
 * its next batch on its own background thread while the consumer works (as MXNet's one thread per
 * iterator); {@link Builder#prefetch(boolean) prefetch(false)} reads them in turn on the consumer's
 * thread. All providers must have the same batch size, and merged names must be unique (rename the
 * clashes). When one provider's epoch ends before another's, the next call throws {@link
 * IllegalStateException} naming both and their batch counts: merging batches of different samples
 * counts would pair samples wrongly. {@link #close()} closes every provider. An epoch's {@linkplain
 * PipelineStats#badSamples() bad samples} are every provider's, provider by provider.
 *
 * <p>Resumable when every provider is (a prefetching wrapper is when its provider is): {@link
 * #saveState()} composes this provider's epoch and position with every provider's state, one
 * {@linkplain IterationState#parts() part} each in the order they were added, and a restore
 * restores each provider from its part.
 */
public final class MergedProvider implements BatchProvider<NamedBatch>, Resumable {
  private final List<BatchProvider<? extends Batch>> providers;
  private final List<String> labels;
  private final BatchLayout layout;
  /** For each provider, the positions of its data arrays and of its label arrays in the merged layout. */
  private final int[][] dataAt;
  private final int[][] labelAt;
  private final IterationGuard guard = new IterationGuard("MergedProvider");

  // Where iteration stands; guarded by this.
  /** The epoch the next {@link #iterator()} starts, and the batches of it already delivered (a restore). */
  private int nextEpoch;
  private int resumePosition;
  /**
   * Where the latest epoch stands, or null before the first and after a restore. Not the epoch
   * itself: an epoch dropped mid-way must stay collectable, for its cleaner to stop the providers'
   * epochs (their threads).
   */
  private @Nullable Progress current;

  private MergedProvider(Builder b) {
    List<BatchProvider<? extends Batch>> ps = new ArrayList<>();
    for (BatchProvider<? extends Batch> p : b.providers) {
      ps.add(b.prefetch ? PrefetchingProvider.of(p) : p);
    }
    this.providers = List.copyOf(ps);
    this.labels = List.copyOf(b.labels);
    List<DataDesc> data = new ArrayList<>();
    List<DataDesc> label = new ArrayList<>();
    int n = b.providers.size();
    this.dataAt = new int[n][];
    this.labelAt = new int[n][];
    int nData = 0;
    for (BatchProvider<? extends Batch> p : b.providers) {
      nData += p.provideData().size();
    }
    for (int i = 0; i < n; i++) {
      BatchProvider<? extends Batch> p = b.providers.get(i);
      Map<String, String> renames = b.renames.get(i);
      List<String> names = new ArrayList<>();
      p.provideData().forEach(d -> names.add(d.name()));
      p.provideLabel().forEach(d -> names.add(d.name()));
      for (String from : renames.keySet()) {
        if (!names.contains(from)) {
          throw new IllegalArgumentException("MergedProvider: " + labels.get(i) + " has no array '" + from
              + "' to rename; its arrays are " + names);
        }
      }
      dataAt[i] = new int[p.provideData().size()];
      for (int k = 0; k < dataAt[i].length; k++) {
        DataDesc d = p.provideData().get(k);
        dataAt[i][k] = data.size();
        data.add(d.toBuilder().name(renames.getOrDefault(d.name(), d.name())).build());
      }
      labelAt[i] = new int[p.provideLabel().size()];
      for (int k = 0; k < labelAt[i].length; k++) {
        DataDesc d = p.provideLabel().get(k);
        labelAt[i][k] = nData + label.size();
        label.add(d.toBuilder().name(renames.getOrDefault(d.name(), d.name())).build());
      }
    }
    List<String> all = new ArrayList<>();
    data.forEach(d -> all.add(d.name()));
    label.forEach(d -> all.add(d.name()));
    for (String name : all) {
      if (all.indexOf(name) != all.lastIndexOf(name)) {
        throw new IllegalArgumentException("MergedProvider: two providers provide '" + name + "'; rename one with "
            + "add(provider, Map.of(\"" + name + "\", \"new name\")). Names: " + all);
      }
    }
    this.layout = BatchLayout.of(data, label);
  }

  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** A provider configured by {@code settings}. */
  public static MergedProvider create(Consumer<Builder> settings) {
    Builder b = builder();
    settings.accept(b);
    return b.build();
  }

  /** The merged names and shapes: every provider's data, then every provider's labels. */
  public BatchLayout layout() {
    return layout;
  }

  @Override
  public int batchSize() {
    return providers.get(0).batchSize();
  }

  @Override
  public List<DataDesc> provideData() {
    return layout.data();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return layout.label();
  }

  @Override
  public BatchIterator<NamedBatch> iterator() {
    long ticket = guard.begin();
    int epoch;
    int start;
    synchronized (this) {
      epoch = nextEpoch++;
      start = resumePosition;
      resumePosition = 0;
      current = null;
    }
    Epoch e = new Epoch(ticket, new Progress(epoch, start));
    synchronized (this) {
      current = e.progress;
    }
    guard.onStop(ticket, e.stopper::clean);
    return e;
  }

  /**
   * This provider's epoch and the batches delivered of it (or, once its epoch is over, the next
   * epoch at 0), with every provider's state as a part, in the order they were added.
   *
   * @throws UnsupportedOperationException if a provider cannot save a state (it is not {@link
   *     Resumable}, or prefetched without being so), naming it
   */
  @Override
  public IterationState saveState() {
    List<Resumable> rs = resumables("save");
    synchronized (this) {
      List<IterationState> parts = new ArrayList<>(rs.size());
      for (int i = 0; i < rs.size(); i++) {
        try {
          parts.add(rs.get(i).saveState());
        } catch (UnsupportedOperationException e) {
          throw new UnsupportedOperationException("MergedProvider cannot save an iteration state: " + labels.get(i)
              + " cannot: " + e.getMessage(), e);
        }
      }
      Progress c = current;
      boolean going = c != null && !c.over;
      int epoch = going ? c.epoch : nextEpoch;
      int position = going ? (int) Math.min(Integer.MAX_VALUE, c.delivered) : resumePosition;
      if (going && position > 0 && parts.stream().allMatch(p -> p.position() == 0)) {
        // Every provider delivered its epoch to the end (each state names its next epoch): so did this one.
        epoch = nextEpoch;
        position = 0;
      }
      return new IterationState(0, epoch, position, new int[0], fingerprint(), parts);
    }
  }

  /**
   * Continues from {@code state} at the next iteration: this provider's epoch and position, and
   * every provider restored from its part. The iteration in progress ends first. If a provider
   * refuses its part, every provider is put back as {@link #saveState()} described it just before,
   * so they stay in step.
   *
   * @throws UnsupportedOperationException if a provider is not {@link Resumable}
   * @throws IllegalArgumentException if the state was saved by another kind of provider or with
   *     another number of providers, or a provider refuses its part (the message names it)
   * @throws IllegalStateException if a streaming provider cannot replay its source
   */
  @Override
  public void restoreState(IterationState state) {
    List<Resumable> rs = resumables("restore");
    guard.checkOpen();
    guard.supersede();
    String fingerprint = fingerprint();
    if (!state.settings().equals(fingerprint)) {
      throw new IllegalArgumentException("cannot restore an iteration state saved with other settings, or by another "
          + "kind of provider:\n  saved:    " + state.settings() + "\n  this one: " + fingerprint);
    }
    if (state.parts().size() != rs.size()) {
      throw new IllegalArgumentException("iteration state: a MergedProvider's state holds one part per provider, "
          + rs.size() + " here, found " + state.parts().size());
    }
    IterationState before = saveState();
    for (int i = 0; i < rs.size(); i++) {
      try {
        rs.get(i).restoreState(state.parts().get(i));
      } catch (RuntimeException e) {
        for (int j = 0; j < rs.size(); j++) {
          try {
            rs.get(j).restoreState(before.parts().get(j));
          } catch (RuntimeException again) {
            e.addSuppressed(again);
          }
        }
        resumeAt(before);
        String why = "MergedProvider: " + labels.get(i) + " refused its part: " + e.getMessage();
        if (e instanceof IllegalArgumentException) {
          throw new IllegalArgumentException(why, e);
        }
        if (e instanceof IllegalStateException) {
          throw new IllegalStateException(why, e);
        }
        throw e;
      }
    }
    resumeAt(state);
  }

  /** The next iteration starts at {@code state}'s epoch and position. */
  private synchronized void resumeAt(IterationState state) {
    nextEpoch = state.epoch();
    resumePosition = state.position();
    current = null;
  }

  private String fingerprint() {
    return "MergedProvider(providers=" + providers.size() + ")";
  }

  private List<Resumable> resumables(String what) {
    List<Resumable> out = new ArrayList<>(providers.size());
    for (int i = 0; i < providers.size(); i++) {
      if (!(providers.get(i) instanceof Resumable r)) {
        throw new UnsupportedOperationException("MergedProvider cannot " + what + " an iteration state: "
            + labels.get(i) + " is not Resumable; merge providers that are (every provider of this runtime)");
      }
      out.add(r);
    }
    return out;
  }

  /**
   * Closes every provider. Idempotent.
   */
  @Override
  public void close() {
    if (guard.close()) {
      CloseAll.closeAll(providers, BatchProvider::close);
    }
  }

  /** Where an epoch stands: its number, the batches delivered (counting those before a restore), whether it is over. */
  private static final class Progress {
    final int epoch;
    volatile long delivered;
    volatile boolean over;

    Progress(int epoch, long delivered) {
      this.epoch = epoch;
      this.delivered = delivered;
    }
  }

  /** Closes the providers' epochs; holds no reference to the merged epoch. */
  private record CloseSources(List<BatchIterator<? extends Batch>> sources) implements Runnable {
    @Override
    public void run() {
      for (BatchIterator<? extends Batch> s : sources) {
        s.close();
      }
    }
  }

  /** One epoch: every provider's epoch, read in step. */
  private final class Epoch extends GuardedIterator<NamedBatch> {
    private final List<BatchIterator<? extends Batch>> sources = new ArrayList<>();
    private final NamedBatch[] ring = {new NamedBatch(layout), new NamedBatch(layout)};
    private final INDArray[] contents = new INDArray[layout.size()];
    private final Batch[] current;
    final Progress progress;
    /** Closes the providers' epochs once, when this one ends or is collected. */
    final Cleaner.Cleanable stopper;

    Epoch(long ticket, Progress progress) {
      super(guard, ticket);
      this.progress = progress;
      this.current = new Batch[providers.size()];
      this.stopper = ThreadCleaner.register(this, new CloseSources(sources));
      try {
        for (BatchProvider<? extends Batch> p : providers) {
          sources.add(p.iterator());
        }
      } catch (RuntimeException e) {
        closeSources();
        throw e;
      }
    }

    void closeSources() {
      stopper.clean();
    }

    @Override
    protected boolean more() {
      int ended = -1;
      int going = -1;
      for (int i = 0; i < sources.size(); i++) {
        if (sources.get(i).hasNext()) {
          going = i;
        } else {
          ended = i;
        }
      }
      if (ended >= 0 && going >= 0) {
        closeSources();
        throw new IllegalStateException("MergedProvider: the providers' batch counts differ: " + labels.get(ended)
            + " ended after " + progress.delivered + " batches while " + labels.get(going) + " has more; merged providers must "
            + "deliver the same number of batches per epoch");
      }
      if (going < 0) {
        progress.over = true;
      }
      return going >= 0;
    }

    @Override
    protected void release() {
      closeSources();
    }

    @Override
    protected NamedBatch produce() {
      if (!checkMore()) {
        throw new NoSuchElementException("the epoch is over");
      }
      int rows = -1;
      for (int i = 0; i < sources.size(); i++) {
        Batch b = sources.get(i).next();
        current[i] = b;
        if (rows < 0) {
          rows = b.rows();
        } else if (b.rows() != rows) {
          throw new IllegalStateException("MergedProvider: batch " + progress.delivered + " has " + rows + " rows from "
              + labels.get(0) + " but " + b.rows() + " from " + labels.get(i));
        }
        List<INDArray> d = b.data();
        for (int k = 0; k < dataAt[i].length; k++) {
          contents[dataAt[i][k]] = d.get(k);
        }
        List<INDArray> l = b.label();
        for (int k = 0; k < labelAt[i].length; k++) {
          contents[labelAt[i][k]] = l.get(k);
        }
      }
      NamedBatch out = ring[(int) (progress.delivered & 1)];
      out.reset(contents, rows, current[0].pad(), current[0].sampleIndices());
      progress.delivered++;
      return out;
    }

    @Override
    protected PipelineStats upstream() {
      PipelineStats s = PipelineStats.EMPTY;
      for (BatchIterator<? extends Batch> it : sources) {
        s = s.plus(PipelineStats.of(it));
      }
      return s;
    }

    /** Every provider's bad samples, provider by provider (each provider's in its batch order). */
    @Override
    protected List<BadSample> badSamples() {
      List<BadSample> all = new ArrayList<>();
      for (BatchIterator<? extends Batch> it : sources) {
        all.addAll(PipelineStats.of(it).badSamples());
      }
      return all;
    }
  }

  /** Settings of a {@link MergedProvider}. */
  public static final class Builder {
    private final List<BatchProvider<? extends Batch>> providers = new ArrayList<>();
    private final List<Map<String, String>> renames = new ArrayList<>();
    private final List<String> labels = new ArrayList<>();
    private boolean prefetch = true;

    private Builder() {}

    /** Adds a provider whose arrays keep their names. */
    public Builder add(BatchProvider<? extends Batch> provider) {
      return add(provider, Map.of());
    }

    /**
     * Adds a provider, renaming its arrays by {@code renames} (old name → new name; MXNet's {@code
     * rename_data} and {@code rename_label} in one map).
     */
    public Builder add(BatchProvider<? extends Batch> provider, Map<String, String> renames) {
      labels.add("provider " + providers.size() + " (" + provider.getClass().getSimpleName() + ")");
      providers.add(provider);
      this.renames.add(new LinkedHashMap<>(renames));
      return this;
    }

    /** Whether each provider prepares its next batch on a background thread; default true. */
    public Builder prefetch(boolean prefetch) {
      this.prefetch = prefetch;
      return this;
    }

    /**
     * The provider.
     *
     * @throws IllegalArgumentException for no providers, different batch sizes, a rename of a name a
     *     provider does not have, or a name provided twice
     */
    public MergedProvider build() {
      if (providers.isEmpty()) {
        throw new IllegalArgumentException("MergedProvider: add at least one provider");
      }
      int size = providers.get(0).batchSize();
      for (int i = 1; i < providers.size(); i++) {
        if (providers.get(i).batchSize() != size) {
          throw new IllegalArgumentException("MergedProvider: " + labels.get(0) + " has batch size " + size + " but "
              + labels.get(i) + " has " + providers.get(i).batchSize() + "; merged batches need one batch size");
        }
      }
      return new MergedProvider(this);
    }
  }
}
