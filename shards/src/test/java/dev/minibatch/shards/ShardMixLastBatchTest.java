package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.contract.IndexedSamples;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The last-batch policies on a mix whose sets take turns, which the provider contract cannot
 * describe (its source order is not its sample order): set A holds samples 0..5 of {@link
 * IndexedSamples} (files of 3), set B samples 6..9 (files of 2), so a mix's sample indices (A's
 * from 0, B's after them) are the samples' own. Weights 3 : 2 over an epoch of 10 give quotas 6 and
 * 4, and unshuffled the positions go to the set whose next sample is due first, {@code (j + 1/2) /
 * q}: A at 1/12, 3/12, 5/12, 7/12, 9/12, 11/12, B at 1/8, 3/8, 5/8, 7/8, so every epoch's order is
 * {@code 0 6 1 7 2 3 8 4 9 5} (docs/shards.md, "Mixing shard sets"). The policies cut that order
 * as they cut a single provider's: the expectations below are written out by hand from it.
 */
class ShardMixLastBatchTest {
  @TempDir static Path dir;
  private static String a;
  private static String b;

  @BeforeAll
  static void write() {
    a = write("a", 0, 6, 3);
    b = write("b", 6, 10, 2);
  }

  private static String write(String name, int from, int to, int perFile) {
    String location = dir.resolve(name).toString();
    try (ArrayDataProvider source = ArrayDataProvider.builder()
        .data("data", Nd4j.create(IndexedSamples.data(from, to)))
        .label("softmax_label", Nd4j.createFromArray(IndexedSamples.labels(from, to)))
        .batchSize(4).build()) {
      ShardWriter.builder().samplesPerFile(perFile).build().write(source, location);
    }
    return location;
  }

  private static ShardProvider mix(LastBatch policy, Consumer<ShardProvider.Builder> settings) {
    ShardProvider.Builder p = ShardProvider.mix().source(a, 3).source(b, 2).batchSize(3).lastBatch(policy)
        .dataPadding(-7).labelPadding(-3);
    settings.accept(p);
    return p.build();
  }

  /** One epoch's batches as sample indices, each row checked: a sample's values, or the padding constants at -1. */
  private static List<List<Long>> epoch(ShardProvider p, List<Integer> pads) {
    List<List<Long>> out = new ArrayList<>();
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        NamedBatch batch = it.next();
        List<Long> ids = new ArrayList<>();
        for (int r = 0; r < batch.rows(); r++) {
          long i = batch.sampleIndex(r);
          if (i < 0) {
            assertTrue(r >= batch.rows() - batch.pad(), "a constant pad row among the samples");
            assertEquals(-7f, batch.get("data").getFloat(r, 0));
            assertEquals(-7f, batch.get("data").getFloat(r, 1));
            assertEquals(-3, batch.get("softmax_label").getInt(r));
          } else {
            assertTrue(IndexedSamples.holds(batch, r, i), "row " + r + " names sample " + i);
          }
          ids.add(i);
        }
        out.add(ids);
        pads.add(batch.pad());
      }
    }
    return out;
  }

  private static List<Long> ids(long... ids) {
    List<Long> out = new ArrayList<>();
    for (long i : ids) {
      out.add(i);
    }
    return out;
  }

  /** Checks {@code epochs} consecutive epochs of {@code policy} against their batches and pads. */
  private static void check(LastBatch policy, List<List<List<Long>>> epochs, List<List<Integer>> pads) {
    try (ShardProvider p = mix(policy, s -> {})) {
      for (int e = 0; e < epochs.size(); e++) {
        List<Integer> got = new ArrayList<>();
        assertEquals(epochs.get(e), epoch(p, got), policy + ", epoch " + e);
        assertEquals(pads.get(e), got, policy + ", epoch " + e + "'s pad() per batch");
      }
    }
  }

  @Test
  void partialAndDiscardCutTheMixedOrder() {
    check(LastBatch.PARTIAL, List.of(List.of(ids(0, 6, 1), ids(7, 2, 3), ids(8, 4, 9), ids(5))),
        List.of(List.of(0, 0, 0, 0)));
    check(LastBatch.DISCARD, List.of(List.of(ids(0, 6, 1), ids(7, 2, 3), ids(8, 4, 9))), List.of(List.of(0, 0, 0)));
  }

  @Test
  void padConstantAndPadWrapFillTheLastBatch() {
    check(LastBatch.PAD_CONSTANT, List.of(List.of(ids(0, 6, 1), ids(7, 2, 3), ids(8, 4, 9), ids(5, -1, -1))),
        List.of(List.of(0, 0, 0, 2)));
    check(LastBatch.PAD_WRAP, List.of(List.of(ids(0, 6, 1), ids(7, 2, 3), ids(8, 4, 9), ids(5, 0, 6)),
        List.of(ids(0, 6, 1), ids(7, 2, 3), ids(8, 4, 9), ids(5, 0, 6))), List.of(List.of(0, 0, 0, 2), List.of(0, 0, 0, 2)));
  }

  @Test
  void rollOverCarriesIntoTheNextEpochsOfTheMix() {
    check(LastBatch.ROLL_OVER, List.of(
        List.of(ids(0, 6, 1), ids(7, 2, 3), ids(8, 4, 9)),
        List.of(ids(5, 0, 6), ids(1, 7, 2), ids(3, 8, 4)),
        List.of(ids(9, 5, 0), ids(6, 1, 7), ids(2, 3, 8), ids(4, 9, 5)),
        List.of(ids(0, 6, 1), ids(7, 2, 3), ids(8, 4, 9))),
        List.of(List.of(0, 0, 0), List.of(0, 0, 0), List.of(0, 0, 0, 0), List.of(0, 0, 0)));
  }

  @Test
  void padContinuePadsWithTheNextEpochsFirstPositions() {
    check(LastBatch.PAD_CONTINUE, List.of(
        List.of(ids(0, 6, 1), ids(7, 2, 3), ids(8, 4, 9), ids(5, 0, 6)),
        List.of(ids(1, 7, 2), ids(3, 8, 4), ids(9, 5, 0)),
        List.of(ids(6, 1, 7), ids(2, 3, 8), ids(4, 9, 5)),
        List.of(ids(0, 6, 1), ids(7, 2, 3), ids(8, 4, 9), ids(5, 0, 6))),
        List.of(List.of(0, 0, 0, 2), List.of(0, 0, 1), List.of(0, 0, 0), List.of(0, 0, 0, 2)));
  }
}
