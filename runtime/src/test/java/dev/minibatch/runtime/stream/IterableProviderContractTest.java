package dev.minibatch.runtime.stream;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.contract.IndexedSamples;
import dev.minibatch.runtime.contract.ProviderContract;
import dev.minibatch.runtime.contract.ProviderFixture;
import dev.minibatch.runtime.internal.SampleBatcher;
import dev.minibatch.shape.Shape;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The provider contract on a provider over a plain {@link Iterable} (not a List, not a Reader), on
 * the runtime's engine as a stream, as a generated provider's {@code streaming(iterable)} is: each
 * epoch iterates the iterable anew, and resume replays it.
 */
class IterableProviderContractTest extends ProviderContract {
  @Override
  protected ProviderFixture fixture() {
    return new Streaming();
  }

  static final class Streaming implements ProviderFixture {
    @Override
    public Set<Capability> capabilities() {
      return EnumSet.of(Capability.RESUME);
    }

    @Override
    public IterableProvider build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      return new IterableProvider.Builder().apply(settings).build(counting(numSamples));
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return IndexedSamples.holds(batch, row, sample);
    }

    /** A plain iterable of samples {@code 0 .. n - 1}, each iterator from 0. */
    private static Iterable<Integer> counting(int n) {
      return () -> new Iterator<>() {
        private int next;

        @Override
        public boolean hasNext() {
          return next < n;
        }

        @Override
        public Integer next() {
          if (next >= n) {
            throw new NoSuchElementException();
          }
          return next++;
        }
      };
    }
  }

  /** What a generated provider over an Iterable does, by hand: sample i is IndexedSamples' sample i. */
  static final class IterableProvider implements BatchProvider<NamedBatch>, Resumable {
    private final SampleBatcher<Integer, NamedBatch> batcher;

    private IterableProvider(SampleBatcher<Integer, NamedBatch> batcher) {
      this.batcher = batcher;
    }

    static BatchLayout layout(int batchSize) {
      return BatchLayout.of(List.of(DataDesc.of("data", batchSize, Shape.of(2), DType.FLOAT32, Role.DATA)),
          List.of(DataDesc.of("softmax_label", batchSize, Shape.scalar(), DType.INT32, Role.LABEL)));
    }

    @Override
    public int batchSize() {
      return batcher.batchSize();
    }

    @Override
    public List<DataDesc> provideData() {
      return batcher.layout().data();
    }

    @Override
    public List<DataDesc> provideLabel() {
      return batcher.layout().label();
    }

    @Override
    public BatchIterator<NamedBatch> iterator() {
      return batcher.iterator();
    }

    @Override
    public IterationState saveState() {
      return batcher.saveState();
    }

    @Override
    public void restoreState(IterationState state) {
      batcher.restoreState(state);
    }

    @Override
    public void close() {
      batcher.close();
    }

    static final class Builder extends ProviderBuilder<Builder> {
      IterableProvider build(Iterable<Integer> samples) {
        return new IterableProvider(SampleBatcher.<Integer, NamedBatch>streaming("IterableProvider", samples,
            dev.minibatch.runtime.internal.settings.Sampling.resolve(settings()), IterableProvider::layout, NamedBatch::new, (list, positions, indices, from, to, target) -> {
              FloatBuffer data = target.floats(0);
              IntBuffer labels = target.ints(1);
              for (int r = from; r < to; r++) {
                int i = list.get(positions[r]);
                data.put(2 * r, IndexedSamples.data(i)[0]);
                data.put(2 * r + 1, IndexedSamples.data(i)[1]);
                labels.put(r, IndexedSamples.label(i));
              }
            }));
      }
    }
  }
}
