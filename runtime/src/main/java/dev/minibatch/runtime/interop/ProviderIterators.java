package dev.minibatch.runtime.interop;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import java.util.List;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.MultiDataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;

/**
 * Adapters from a {@link BatchProvider} to ND4J's iterator interfaces, so SameDiff's {@code fit}
 * and DL4J networks train from minibatch providers.
 *
 * <p>Features are the provider's data arrays and labels its label arrays, in the provider's order
 * ({@link BatchProvider#provideData()}, {@link BatchProvider#provideLabel()}); bind SameDiff
 * placeholders with {@link SameDiffBinding}. {@code reset()} starts the provider's next epoch
 * (reshuffling if it shuffles). The adapters report {@code asyncSupported() == false}: providers
 * reuse their batch buffers, so a DL4J prefetch thread holding several batches would see them
 * overwritten — prefetching belongs to the provider's own pipeline. With {@code detach}, every
 * batch is copied instead, for consumers that keep batches.
 */
public final class ProviderIterators {
  private ProviderIterators() {}

  /** A {@code MultiDataSetIterator} over {@code provider}'s epochs; batches are not copied. */
  public static MultiDataSetIterator multiDataSet(BatchProvider<?> provider) {
    return new MultiAdapter(provider, false);
  }

  /** A {@code MultiDataSetIterator}; with {@code detach}, each batch is copied out of the buffers. */
  public static MultiDataSetIterator multiDataSet(BatchProvider<?> provider, boolean detach) {
    return new MultiAdapter(provider, detach);
  }

  /**
   * A {@code DataSetIterator} for a provider with exactly one data and one label array.
   *
   * @throws IllegalArgumentException if the provider has more or fewer arrays, naming them
   */
  public static DataSetIterator dataSet(BatchProvider<?> provider) {
    if (provider.provideData().size() != 1 || provider.provideLabel().size() != 1) {
      throw new IllegalArgumentException("a DataSetIterator needs exactly one data and one label array; this provider has data "
          + provider.provideData().stream().map(d -> d.name()).toList() + " and labels "
          + provider.provideLabel().stream().map(d -> d.name()).toList() + "; use multiDataSet(provider)");
    }
    return new SingleAdapter(provider);
  }

  /** The shared epoch handling: a live epoch iterator that reset() replaces. */
  private abstract static class Base {
    final BatchProvider<?> provider;
    private @Nullable BatchIterator<? extends Batch> epoch;

    Base(BatchProvider<?> provider) {
      this.provider = provider;
    }

    private BatchIterator<? extends Batch> epoch() {
      BatchIterator<? extends Batch> e = epoch;
      if (e == null) {
        e = provider.iterator();
        epoch = e;
      }
      return e;
    }

    public boolean hasNext() {
      return epoch().hasNext();
    }

    Batch nextBatch() {
      if (!hasNext()) {
        throw new NoSuchElementException("the epoch is over; call reset() for the next one");
      }
      return epoch().next();
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
      epoch = provider.iterator();
    }

    /**
     * The masks of {@code names} (a variable-length member's mask, null for a fixed one), or null
     * when none has one, as DL4J expects.
     */
    static INDArray @Nullable [] masks(Batch b, List<String> names, boolean detach) {
      INDArray[] out = new INDArray[names.size()];
      boolean any = false;
      for (int i = 0; i < out.length; i++) {
        INDArray m = b.mask(names.get(i));
        out[i] = m == null || !detach ? m : m.dup();
        any |= m != null;
      }
      return any ? out : null;
    }

    static INDArray[] arrays(List<INDArray> list, boolean detach) {
      INDArray[] out = new INDArray[list.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = detach ? list.get(i).dup() : list.get(i);
      }
      return out;
    }
  }

  private static final class MultiAdapter extends Base implements MultiDataSetIterator {
    private static final long serialVersionUID = 1L;
    private final boolean detach;
    private @Nullable MultiDataSetPreProcessor preProcessor;

    MultiAdapter(BatchProvider<?> provider, boolean detach) {
      super(provider);
      this.detach = detach;
    }

    @Override
    public MultiDataSet next() {
      Batch b = nextBatch();
      List<String> names = b.names();
      int nData = b.data().size();
      MultiDataSet m = new org.nd4j.linalg.dataset.MultiDataSet(arrays(b.data(), detach), arrays(b.label(), detach),
          masks(b, names.subList(0, nData), detach), masks(b, names.subList(nData, names.size()), detach));
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

    SingleAdapter(BatchProvider<?> provider) {
      super(provider);
    }

    @Override
    public DataSet next() {
      Batch b = nextBatch();
      INDArray[] featureMask = masks(b, b.names().subList(0, 1), false);
      INDArray[] labelMask = masks(b, b.names().subList(1, 2), false);
      DataSet d = new DataSet(b.data().get(0), b.label().get(0), featureMask == null ? null : featureMask[0],
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
      return (int) provider.provideLabel().get(0).sampleShape().elementCount();
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
