package dev.minibatch.shards.elastic;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ShardProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * One trainer process of {@link ElasticTrainersTest}: reads its part of a shard set's epoch 0 and
 * appends each batch's sample ids to a file, one line per batch, written before the next batch is
 * asked for (so a killed trainer leaves the batches it delivered).
 *
 * <p>Arguments: {@code set parts part state out checkpointAfter extra}. With {@code state} a file,
 * the trainer restores it first and reads to the end of the epoch. With {@code state} "-", it saves
 * its state after {@code checkpointAfter} batches into {@code out + ".state"}, prints
 * "checkpoint", delivers {@code extra} more batches, prints "waiting" and blocks until killed.
 */
public final class ShardTrainer {
  /** Settings every trainer of the test shares: the global order depends on them. */
  static ShardProvider.Builder settings(String set) {
    return ShardProvider.builder(set).batchSize(ElasticTrainersTest.BATCH).shuffle(true).seed(7)
        .shuffleWindow(ElasticTrainersTest.WINDOW).lastBatch(LastBatch.PAD_CONSTANT);
  }

  /** The sample ids of a batch's samples (padding rows left out): column 0 holds the id. */
  static int[] ids(NamedBatch b) {
    INDArray x = b.get("x");
    int[] ids = new int[b.countSamples()];
    for (int r = 0; r < ids.length; r++) {
      ids[r] = (int) x.getFloat(r, 0);
    }
    return ids;
  }

  static String line(int[] ids) {
    StringBuilder s = new StringBuilder();
    for (int id : ids) {
      s.append(s.length() == 0 ? "" : " ").append(id);
    }
    return s.append('\n').toString();
  }

  public static void main(String[] args) throws IOException {
    String set = args[0];
    int parts = Integer.parseInt(args[1]);
    int part = Integer.parseInt(args[2]);
    String state = args[3];
    Path out = Path.of(args[4]);
    int checkpointAfter = Integer.parseInt(args[5]);
    int extra = Integer.parseInt(args[6]);
    PrintStream console = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (ShardProvider p = settings(set).shard(parts, part).build();
        OutputStream batches = Files.newOutputStream(out, StandardOpenOption.CREATE_NEW)) {
      boolean resumed = !state.equals("-");
      if (resumed) {
        p.restoreState(IterationState.decode(Files.readString(Path.of(state))));
      }
      Iterator<NamedBatch> it = p.iterator();
      int delivered = 0;
      while (it.hasNext()) {
        batches.write(line(ids(it.next())).getBytes(StandardCharsets.US_ASCII));
        batches.flush();
        delivered++;
        if (!resumed && delivered == checkpointAfter) {
          Files.writeString(Path.of(out + ".state"), p.saveState().encode());
          console.println("checkpoint");
        }
        if (!resumed && delivered == checkpointAfter + extra) {
          console.println("waiting");
          // Blocks until the test kills this process, mid-epoch, with its read-ahead thread alive.
          System.in.read();
          return;
        }
      }
      console.println("done " + delivered);
    }
  }
}
