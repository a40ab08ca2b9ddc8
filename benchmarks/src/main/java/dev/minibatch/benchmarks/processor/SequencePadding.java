package dev.minibatch.benchmarks.processor;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.PaddingStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints the padding ratio (padded steps / real steps) of one shuffled epoch of {@link
 * SequenceCollateBenchmark}'s skewed lengths, padded per batch and with buckets (given bounds, and
 * bounds chosen by count). No timing: the ratio is a property of the order. The command is in
 * {@code docs/performance.md} ("Variable-length samples").
 */
public final class SequencePadding {
  private SequencePadding() {}

  public static void main(String[] args) {
    int[] lengths = SequenceCollateBenchmark.lengths();
    List<VarFrames> v = new ArrayList<>();
    for (int i = 0; i < lengths.length; i++) {
      v.add(new VarFrames(new float[lengths[i]][SequenceCollateBenchmark.FEATURES], 0));
    }
    print("padded to each batch's longest", VarFramesProvider.builder().samples(v).batchSize(64).shuffle(true)
        .seed(1).build());
    print("buckets 8, 16, 32, 64", VarFramesProvider.builder().samples(v).batchSize(64).shuffle(true).seed(1)
        .buckets(8, 16, 32, 64).build());
    print("8 buckets by count", VarFramesProvider.builder().samples(v).batchSize(64).shuffle(true).seed(1)
        .buckets(dev.minibatch.runtime.Buckets.byCount(8)).build());
    print("32 buckets by count", VarFramesProvider.builder().samples(v).batchSize(64).shuffle(true).seed(1)
        .buckets(dev.minibatch.runtime.Buckets.byCount(32)).build());
    print("fixed length (64)", VarFramesProvider.builder().samples(v).batchSize(64).shuffle(true).seed(1)
        .fixedLength(true).build());
  }

  private static void print(String what, VarFramesProvider p) {
    try (p; BatchIterator<VarFramesBatch> it = p.iterator()) {
      int batches = 0;
      while (it.hasNext()) {
        it.next();
        batches++;
      }
      PaddingStats s = PipelineStats.of(it).padding();
      System.out.printf(Locale.ROOT, "%-32s %3d batches, padding ratio %.3f (%d padded / %d real steps)%n", what,
          batches, s.ratio(), s.paddedSteps(), s.realSteps());
    }
  }
}
