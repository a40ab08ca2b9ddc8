package dev.minibatch.runtime.internal.io;

import dev.minibatch.runtime.spi.Slot;
import dev.minibatch.runtime.spi.RowWriter;
import dev.minibatch.runtime.internal.nd4j.HostArrays;
import dev.minibatch.runtime.internal.pipeline.SeededContext;
import dev.minibatch.runtime.io.SampleProcessor;
import dev.minibatch.runtime.io.SampleProcessor.Sample;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The rows of a file provider with a process function: each sample is read, processed on the
 * reader thread that writes its row, checked against the batch's names and shapes, and copied in.
 * A sample's random stream is seeded from (seed, epoch, position in the epoch), so batches are the
 * same for any number of reader threads.
 */
final class ProcessedRowWriter implements RowWriter {
  private final SampleProcessor process;
  private final IntFunction<Sample> sampleOf;
  /** One reusable context per reader thread, remade when the seed or the epoch changes. */
  private final ThreadLocal<SeededContext> contexts = new ThreadLocal<>();

  ProcessedRowWriter(SampleProcessor process, IntFunction<Sample> sampleOf) {
    this.process = process;
    this.sampleOf = sampleOf;
  }

  @Override
  public void write(int[] indices, int from, int to, Slot slot) {
    SeededContext context = contexts.get();
    if (context == null || context.epoch() != slot.epoch() || context.seed() != slot.seed()) {
      context = new SeededContext(slot.seed(), slot.epoch());
      contexts.set(context);
    }
    for (int r = from; r < to; r++) {
      int sample = indices[r];
      context.at(slot.firstPosition() + r);
      Sample out;
      try {
        out = process.apply(sampleOf.apply(sample), context);
      } catch (RuntimeException | Error e) {
        throw new SampleFailure("process", sample, "the process function failed", e);
      }
      copy(out, sample, slot, r);
    }
  }

  /** Copies a processed sample into row {@code row} of the slot, checking names and shapes. */
  private static void copy(Sample out, int sample, Slot slot, int row) {
    List<INDArray> arrays = out.arrays();
    if (arrays.size() != slot.arrays()) {
      throw new SampleFailure("process", sample, "the processed sample does not fit the batch",
          new IllegalArgumentException("the process function returned " + arrays.size() + " arrays " + out.names()
              + "; expected " + slot.arrays()));
    }
    for (int i = 0; i < arrays.size(); i++) {
      INDArray a = arrays.get(i);
      INDArray target = slot.array(i);
      long[] expected = Arrays.copyOfRange(target.shape(), 1, target.rank());
      if (!Arrays.equals(a.shape(), expected)) {
        throw new SampleFailure("process", sample, "the processed sample does not fit the batch",
            new IllegalArgumentException("the process function returned '" + out.names().get(i) + "' of shape "
                + Arrays.toString(a.shape()) + "; expected " + Arrays.toString(expected)));
      }
      DataType type = target.dataType();
      INDArray src = a.dataType() == type ? a : a.castTo(type);
      if (src.ordering() != 'c' || src.isView() || src.data().offset() != 0 || src.data().length() != src.length()) {
        src = src.dup('c');
      }
      int n = (int) src.length();
      ByteBuffer to = HostArrays.window(target, (long) row * n, n);
      to.put(HostArrays.window(src, 0, n));
    }
  }
}
