package dev.minibatch.samples.mnist;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ShardProvider;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * One trainer process of {@link ElasticTrainers}: reads its part of epoch 0 of a shard set written
 * by {@link WriteMnistShards} and writes each batch's sample indices to a file, one line per batch,
 * flushed before the next batch is asked for (so a killed trainer leaves the batches it delivered).
 * It checks every row against the bundled digits: sample {@code i} must hold the pixels and label of
 * training digit {@code i mod 8000}, so an index that names the wrong sample is caught here.
 *
 * <p>Arguments: {@code set parts part state out checkpointAfter extra batch window seed}. With
 * {@code state} a file, the trainer restores it first, reads to the end of the epoch and prints
 * {@code done <batches> <seconds to the first batch> <seconds in all>}. With {@code state} "-", it
 * saves its state after {@code checkpointAfter} batches into {@code out + ".state"}, prints
 * "checkpoint", delivers {@code extra} more batches, prints "waiting" and blocks until it is killed.
 * A row that does not hold its digit ends the process with status 3 and the row on stderr.
 */
public final class ElasticTrainer {
  private ElasticTrainer() {}

  /** The settings every trainer of a run shares: the global order depends on all of them. */
  static ShardProvider.Builder settings(String set, int batch, int window, long seed) {
    return ShardProvider.builder(set).batchSize(batch).shuffle(true).seed(seed).shuffleWindow(window)
        .lastBatch(LastBatch.PAD_CONSTANT);
  }

  /** The source indices of a batch's samples, padding rows left out. */
  static long[] indices(NamedBatch b) {
    return Arrays.copyOf(b.sampleIndices(), b.countSamples());
  }

  /**
   * Checks that each row of {@code b} holds the digit its index names.
   *
   * @return null, or what is wrong with the first row that does not
   */
  static String check(NamedBatch b, long[] indices, List<MnistDigit> digits) {
    float[] pixels = b.get("image").data().asFloat();
    int[] labels = b.get("label").toIntVector();
    for (int r = 0; r < indices.length; r++) {
      MnistDigit d = digits.get((int) (indices[r] % digits.size()));
      int from = r * MnistDigit.PIXELS;
      if (labels[r] != d.label()
          || !Arrays.equals(pixels, from, from + MnistDigit.PIXELS, d.image(), 0, MnistDigit.PIXELS)) {
        return "row " + r + " names sample " + indices[r] + ", but does not hold digit " + indices[r] % digits.size()
            + " (label " + d.label() + ", read " + labels[r] + ")";
      }
    }
    return null;
  }

  /** One batch's line: its indices separated by spaces. */
  static String line(long[] indices) {
    StringBuilder s = new StringBuilder(indices.length * 7);
    for (long i : indices) {
      s.append(s.length() == 0 ? "" : " ").append(i);
    }
    return s.append('\n').toString();
  }

  /** Runs one trainer; see the class comment for the arguments. */
  public static void main(String[] args) throws IOException {
    String set = args[0];
    int parts = Integer.parseInt(args[1]);
    int part = Integer.parseInt(args[2]);
    String state = args[3];
    Path out = Path.of(args[4]);
    int checkpointAfter = Integer.parseInt(args[5]);
    int extra = Integer.parseInt(args[6]);
    int batch = Integer.parseInt(args[7]);
    int window = Integer.parseInt(args[8]);
    long seed = Long.parseLong(args[9]);
    List<MnistDigit> digits = MnistData.bundled().train();
    PrintStream console = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    long start = System.nanoTime();
    long first = -1;
    try (ShardProvider p = settings(set, batch, window, seed).shard(parts, part).build();
        BufferedWriter batches = Files.newBufferedWriter(out, StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW)) {
      boolean resumed = !state.equals("-");
      if (resumed) {
        p.restoreState(IterationState.decode(Files.readString(Path.of(state))));
      }
      Iterator<NamedBatch> it = p.iterator();
      int delivered = 0;
      while (it.hasNext()) {
        NamedBatch b = it.next();
        if (first < 0) {
          first = System.nanoTime();
        }
        long[] indices = indices(b);
        String wrong = check(b, indices, digits);
        if (wrong != null) {
          System.err.println(out.getFileName() + " batch " + delivered + ": " + wrong);
          System.exit(3);
        }
        batches.write(line(indices));
        batches.flush();
        delivered++;
        if (!resumed && delivered == checkpointAfter) {
          Files.writeString(Path.of(out + ".state"), p.saveState().encode());
          console.println("checkpoint");
        }
        if (!resumed && delivered == checkpointAfter + extra) {
          console.println("waiting");
          // Blocks until the driver kills this process, mid-epoch, with its read-ahead thread alive.
          System.in.read();
          return;
        }
      }
      long end = System.nanoTime();
      console.printf(Locale.ROOT, "done %d %.3f %.3f%n", delivered, ((first < 0 ? end : first) - start) / 1e9,
          (end - start) / 1e9);
    }
  }
}
