package dev.minibatch.runtime.interop;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.internal.nd4j.HostArrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.MultiDataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Adapters from a {@link BatchProvider} to ND4J's iterator interfaces, so SameDiff's {@code fit}
 * and DL4J networks train from minibatch providers.
 *
 * <p>Features are the provider's data arrays and labels its label arrays, in the provider's order
 * ({@link BatchProvider#provideData()}, {@link BatchProvider#provideLabel()}); bind SameDiff
 * placeholders with {@link SameDiffBinding}. {@code reset()} starts the provider's next epoch
 * (reshuffling if it shuffles). {@link Options} choose one-hot labels, copies and padding rows.
 *
 * <p>By default every batch is a copy outside every ND4J workspace, valid for good, whoever holds
 * it and for however long: a prefetching wrapper such as DL4J's {@code AsyncDataSetIterator}
 * (with or without workspaces) or a list of kept batches gets exactly the data it asked for. The
 * provider reuses its batch buffers, so handing them out directly is only safe for a consumer that
 * is done with a batch before it calls {@code next()} again; {@link Options.Builder#detach
 * detach(false)} opts into that (views, no copy) for such a consumer. Even then, when {@code
 * next()} runs inside an open workspace the batch is copied into that workspace, as DL4J's own
 * iterators allocate theirs, so the workspace's cycle governs it; the provider's buffers always
 * live outside workspaces. The adapters report {@code asyncSupported() == false}: the provider
 * prefetches on its own threads already.
 */
public final class ProviderIterators {
  private ProviderIterators() {}

  /** A {@code MultiDataSetIterator} over {@code provider}'s epochs with the default options. */
  public static MultiDataSetIterator multiDataSet(BatchProvider<?> provider) {
    return multiDataSet(provider, Options.DEFAULT);
  }

  /**
   * {@link #multiDataSet(BatchProvider, Options)} with only {@link Options.Builder#detach} set:
   * {@code false} opts into views of the provider's reused buffers.
   */
  public static MultiDataSetIterator multiDataSet(BatchProvider<?> provider, boolean detach) {
    return multiDataSet(provider, Options.builder().detach(detach).build());
  }

  /**
   * A {@code MultiDataSetIterator} over {@code provider}'s epochs.
   *
   * @throws IllegalArgumentException if a one-hot option names no label of the provider or one
   *     without a single class index per sample
   */
  public static MultiDataSetIterator multiDataSet(BatchProvider<?> provider, Options options) {
    return new MultiAdapter(provider, options);
  }

  /** A {@code DataSetIterator} with the default options; see {@link #dataSet(BatchProvider, Options)}. */
  public static DataSetIterator dataSet(BatchProvider<?> provider) {
    return dataSet(provider, Options.DEFAULT);
  }

  /**
   * A {@code DataSetIterator} for a provider with exactly one data and one label array, as DL4J's
   * {@code MultiLayerNetwork.fit} takes. {@code totalOutcomes()} is the one-hot class count, or the
   * label's per-sample element count without one-hot.
   *
   * @throws IllegalArgumentException if the provider has more or fewer arrays, naming them, or the
   *     one-hot option does not fit its label
   */
  public static DataSetIterator dataSet(BatchProvider<?> provider, Options options) {
    if (provider.provideData().size() != 1 || provider.provideLabel().size() != 1) {
      throw new IllegalArgumentException("a DataSetIterator needs exactly one data and one label array; this provider has data "
          + provider.provideData().stream().map(d -> d.name()).toList() + " and labels "
          + provider.provideLabel().stream().map(d -> d.name()).toList() + "; use multiDataSet(provider)");
    }
    return new SingleAdapter(provider, options);
  }

  /**
   * How an adapter hands batches to ND4J; immutable. By default: labels as the provider makes
   * them, every batch a copy valid for good, padding rows dropped.
   */
  public static final class Options {
    static final Options DEFAULT = builder().build();
    private final boolean detach;
    private final boolean keepPadding;
    private final int soleLabelClasses;
    private final Map<String, Integer> oneHot;

    private Options(Builder b) {
      this.detach = b.detach;
      this.keepPadding = b.keepPadding;
      this.soleLabelClasses = b.soleLabelClasses;
      this.oneHot = Map.copyOf(b.oneHot);
    }

    /** A builder with the defaults. */
    public static Builder builder() {
      return new Builder();
    }

    /** The one-hot class count of each of {@code labels} (0: as provided), checked against the provider. */
    int[] classes(List<DataDesc> labels) {
      List<String> names = labels.stream().map(DataDesc::name).toList();
      int[] out = new int[labels.size()];
      if (soleLabelClasses > 0) {
        if (labels.size() != 1) {
          throw new IllegalArgumentException("oneHot(" + soleLabelClasses + ") needs a provider with one label array; this one has "
              + names + "; name the label: oneHot(name, classes)");
        }
        out[0] = soleLabelClasses;
      }
      for (Map.Entry<String, Integer> e : oneHot.entrySet()) {
        int i = names.indexOf(e.getKey());
        if (i < 0) {
          throw new IllegalArgumentException("oneHot('" + e.getKey() + "', " + e.getValue() + "): the provider has no label '"
              + e.getKey() + "'; its labels are " + names);
        }
        out[i] = e.getValue();
      }
      for (int i = 0; i < out.length; i++) {
        if (out[i] > 0 && labels.get(i).sampleShape().elementCount() != 1) {
          throw new IllegalArgumentException("oneHot(" + out[i] + ") needs one class index per sample, but label '"
              + names.get(i) + "' has sample shape " + labels.get(i).sampleShape());
        }
      }
      return out;
    }

    /** Builds {@link Options}. */
    public static final class Builder {
      private boolean detach = true;
      private boolean keepPadding;
      private int soleLabelClasses;
      private final Map<String, Integer> oneHot = new LinkedHashMap<>();

      private Builder() {}

      /**
       * Whether every batch is copied out of the provider's buffers, outside every workspace, so it
       * stays valid after the iterator moves on. Default true: safe for any consumer, including
       * prefetching wrappers (DL4J's {@code AsyncDataSetIterator} with or without workspaces) and
       * consumers that keep batches. {@code false} hands out views of the provider's reused
       * buffers, no copy, valid only until the next {@code next()} (copied into the caller's
       * workspace when {@code next()} runs inside one): only for a consumer that is done with each
       * batch before it asks for the next, such as DL4J's and SameDiff's {@code fit} on the
       * adapter itself or a plain loop. Wrapped in a prefetching iterator without workspaces, views
       * are overwritten while the consumer still reads them.
       */
      public Builder detach(boolean detach) {
        this.detach = detach;
        return this;
      }

      /**
       * Hand the padding rows of a padded last batch ({@code PAD_WRAP}, {@code PAD_CONSTANT}, ...)
       * to ND4J as examples. Default false: the last batch has only its real samples, because DL4J
       * counts every row as a real example (in the loss, in evaluation).
       */
      public Builder keepPadding(boolean keepPadding) {
        this.keepPadding = keepPadding;
        return this;
      }

      /**
       * Labels of the provider's only label array, class indices {@code 0..classes-1}, become
       * one-hot rows {@code [rows, classes]} (float), what DL4J's softmax losses expect.
       *
       * @throws IllegalArgumentException if {@code classes < 1}
       */
      public Builder oneHot(int classes) {
        this.soleLabelClasses = checkClasses(classes);
        return this;
      }

      /**
       * {@link #oneHot(int)} for the label array named {@code label}, for providers with several.
       *
       * @throws IllegalArgumentException if {@code classes < 1}
       */
      public Builder oneHot(String label, int classes) {
        oneHot.put(label, checkClasses(classes));
        return this;
      }

      private static int checkClasses(int classes) {
        return Check.atLeast("oneHot's class count", classes, 1);
      }

      /** The options. */
      public Options build() {
        return new Options(this);
      }
    }
  }

  /** The arrays of one batch as ND4J receives them. */
  private record Parts(INDArray[] features, INDArray[] labels, INDArray @Nullable [] featureMasks,
      INDArray @Nullable [] labelMasks) {
    /** Copies of every array, in the current workspace if one is open. */
    Parts copied() {
      return new Parts(dup(features), dup(labels), dup(featureMasks), dup(labelMasks));
    }

    private static INDArray @Nullable [] dup(INDArray @Nullable [] arrays) {
      if (arrays == null) {
        return null;
      }
      INDArray[] out = new INDArray[arrays.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = arrays[i] == null ? null : arrays[i].dup();
      }
      return out;
    }
  }

  /** The shared epoch handling: a live epoch iterator that reset() replaces, and batch conversion. */
  private abstract static class Base {
    final BatchProvider<?> provider;
    private final Options options;
    /** Per label array, its one-hot encoder or null. */
    private final @Nullable OneHot[] oneHot;
    private @Nullable BatchIterator<? extends Batch> epoch;

    Base(BatchProvider<?> provider, Options options) {
      this.provider = provider;
      this.options = options;
      int[] classes = options.classes(provider.provideLabel());
      this.oneHot = new OneHot[classes.length];
      for (int i = 0; i < classes.length; i++) {
        if (classes[i] > 0) {
          oneHot[i] = new OneHot(provider.provideLabel().get(i).name(), classes[i], provider.batchSize());
        }
      }
    }

    /** The one-hot class count of label {@code i}, 0 if it is passed as provided. */
    final int classes(int i) {
      OneHot h = oneHot[i];
      return h == null ? 0 : h.classes();
    }

    private BatchIterator<? extends Batch> epoch() {
      BatchIterator<? extends Batch> e = epoch;
      return e != null ? e : newEpoch();
    }

    /** Starts the provider's next epoch outside the caller's workspace (it may allocate buffers). */
    @SuppressWarnings("try") // the scope is entered and left, never referenced
    private BatchIterator<? extends Batch> newEpoch() {
      try (MemoryWorkspace outside = HostArrays.outsideWorkspaces()) {
        BatchIterator<? extends Batch> e = provider.iterator();
        epoch = e;
        return e;
      }
    }

    public boolean hasNext() {
      return epoch().hasNext();
    }

    /**
     * The next batch's arrays. The batch is made outside workspaces; it is copied if {@code
     * detach} (the default; outside workspaces) or if the caller has a workspace open (into it); see the class
     * comment.
     */
    @SuppressWarnings("try") // the scope is entered and left, never referenced
    final Parts nextParts() {
      boolean inWorkspace = Nd4j.getMemoryManager().getCurrentWorkspace() != null;
      Parts parts;
      try (MemoryWorkspace outside = HostArrays.outsideWorkspaces()) {
        if (!hasNext()) {
          throw new NoSuchElementException("the epoch is over; call reset() for the next one");
        }
        Batch b = epoch().next();
        if (!options.keepPadding && b.pad() > 0) {
          b = b.slice(0, b.countSamples());
        }
        List<String> names = b.names();
        int nData = b.data().size();
        parts = new Parts(b.data().toArray(INDArray[]::new), labels(b), masks(b, names.subList(0, nData)),
            masks(b, names.subList(nData, names.size())));
        if (options.detach) {
          return parts.copied();
        }
      }
      return inWorkspace ? parts.copied() : parts;
    }

    private INDArray[] labels(Batch b) {
      INDArray[] out = b.label().toArray(INDArray[]::new);
      for (int i = 0; i < out.length; i++) {
        OneHot h = oneHot[i];
        if (h != null) {
          out[i] = h.encode(b, out[i]);
        }
      }
      return out;
    }

    public boolean resetSupported() {
      return true;
    }

    public boolean asyncSupported() {
      return false;
    }

    public void reset() {
      BatchIterator<? extends Batch> e = epoch;
      if (e != null) {
        e.close();
      }
      newEpoch();
    }

    /**
     * The masks of {@code names} (a variable-length member's mask, null for a fixed one), or null
     * when none has one, as DL4J expects.
     */
    private static INDArray @Nullable [] masks(Batch b, List<String> names) {
      INDArray[] out = new INDArray[names.size()];
      boolean any = false;
      for (int i = 0; i < out.length; i++) {
        out[i] = b.mask(names.get(i));
        any |= out[i] != null;
      }
      return any ? out : null;
    }
  }

  private static final class MultiAdapter extends Base implements MultiDataSetIterator {
    private static final long serialVersionUID = 1L;
    private @Nullable MultiDataSetPreProcessor preProcessor;

    MultiAdapter(BatchProvider<?> provider, Options options) {
      super(provider, options);
    }

    @Override
    public MultiDataSet next() {
      Parts b = nextParts();
      MultiDataSet m = new org.nd4j.linalg.dataset.MultiDataSet(b.features(), b.labels(), b.featureMasks(), b.labelMasks());
      MultiDataSetPreProcessor p = preProcessor;
      if (p != null) {
        p.preProcess(m);
      }
      return m;
    }

    @Override
    public MultiDataSet next(int num) {
      throw new UnsupportedOperationException("next(" + num + "): the batch size is the provider's (" + provider.batchSize() + ")");
    }

    @Override
    public void setPreProcessor(MultiDataSetPreProcessor preProcessor) {
      this.preProcessor = preProcessor;
    }

    @Override
    public @Nullable MultiDataSetPreProcessor getPreProcessor() {
      return preProcessor;
    }
  }

  private static final class SingleAdapter extends Base implements DataSetIterator {
    private static final long serialVersionUID = 1L;
    private @Nullable DataSetPreProcessor preProcessor;

    SingleAdapter(BatchProvider<?> provider, Options options) {
      super(provider, options);
    }

    @Override
    public DataSet next() {
      Parts b = nextParts();
      INDArray[] featureMask = b.featureMasks();
      INDArray[] labelMask = b.labelMasks();
      DataSet d = new DataSet(b.features()[0], b.labels()[0], featureMask == null ? null : featureMask[0],
          labelMask == null ? null : labelMask[0]);
      DataSetPreProcessor p = preProcessor;
      if (p != null) {
        p.preProcess(d);
      }
      return d;
    }

    @Override
    public DataSet next(int num) {
      throw new UnsupportedOperationException("next(" + num + "): the batch size is the provider's (" + provider.batchSize() + ")");
    }

    @Override
    public int inputColumns() {
      return (int) provider.provideData().get(0).sampleShape().elementCount();
    }

    @Override
    public int totalOutcomes() {
      int classes = classes(0);
      return classes > 0 ? classes : (int) provider.provideLabel().get(0).sampleShape().elementCount();
    }

    @Override
    public int batch() {
      return provider.batchSize();
    }

    @Override
    public void setPreProcessor(DataSetPreProcessor preProcessor) {
      this.preProcessor = preProcessor;
    }

    @Override
    public @Nullable DataSetPreProcessor getPreProcessor() {
      return preProcessor;
    }

    @Override
    public @Nullable List<String> getLabels() {
      return null;
    }
  }
}
