package dev.minibatch.runtime.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Readers.Tuple;
import dev.minibatch.shape.Shape;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FeedingProviderTest {

  /** Sample i: (image = [i, i+0.5, i+0.25, i+0.75] as 2x2, label = i % 3, ignored text). */
  static Reader<Tuple> samples(int n) {
    return Readers.range(0, n).map(i -> Tuple.of(
        new float[][] {{i, i + 0.5f}, {i + 0.25f, i + 0.75f}}, i % 3, "sample " + i));
  }

  @Test
  void namesComeFromTheFeedingMapAndAColumnCanFeedTwoNames() {
    Map<String, Integer> feeding = new LinkedHashMap<>();
    feeding.put("image", 0);
    feeding.put("label", 1);
    feeding.put("label_copy", 1);
    try (FeedingProvider p = FeedingProvider.builder(samples(7)).feeding(feeding, "label", "label_copy")
        .batchSize(3).build()) {
      assertEquals(List.of("image"), p.provideData().stream().map(d -> d.name()).toList());
      assertEquals(List.of("label", "label_copy"), p.provideLabel().stream().map(d -> d.name()).toList());
      assertEquals(Shape.of(3, 2, 2), p.provideData().get(0).shape());
      assertEquals(DType.FLOAT32, p.provideData().get(0).dtype());
      assertEquals(DType.INT32, p.provideLabel().get(0).dtype());

      List<Integer> sizes = new ArrayList<>();
      int seen = 0;
      for (NamedBatch b : p) {
        sizes.add(b.countSamples());
        for (int r = 0; r < b.countSamples(); r++) {
          int i = seen + r;
          assertArrayEquals(new float[] {i, i + 0.5f, i + 0.25f, i + 0.75f},
              b.get("image").slice(r).dup().data().asFloat(), 0f);
          assertEquals(i % 3, b.get("label").getInt(r));
          assertEquals(i % 3, b.get("label_copy").getInt(r));
          assertEquals(i, b.sampleIndex(r));
        }
        seen += b.countSamples();
      }
      assertEquals(List.of(3, 3, 1), sizes);
    }
  }

  @Test
  void declaredShapesConvertTypesAndSkipThePeek() {
    AtomicInteger passes = new AtomicInteger();
    Reader<Tuple> counted = () -> {
      passes.incrementAndGet();
      return samples(4).iterator();
    };
    try (FeedingProvider p = FeedingProvider.builder(counted)
        .data("image", 0, Shape.of(2, 2), DType.FLOAT64)   // float[][] converted to doubles
        .label("label", 1, Shape.scalar(), DType.FLOAT32)
        .batchSize(4).build()) {
      assertEquals(0, passes.get(), "nothing read before the first epoch");
      try (BatchIterator<NamedBatch> it = p.iterator()) {
        NamedBatch b = it.next();
        assertArrayEquals(new double[] {3, 3.5, 3.25, 3.75}, b.get("image").slice(3).dup().data().asDouble(), 0);
        assertEquals(0f, b.get("label").getFloat(3));
      }
    }
  }

  @Test
  void aFlatArrayFeedsAShapedNameRowMajor() {
    Reader<Tuple> flat = Readers.range(0, 2).map(i -> Tuple.of(new float[] {i, 1, 2, 3}, i));
    try (FeedingProvider p = FeedingProvider.builder(flat).data("m", 0, Shape.of(2, 2), DType.FLOAT32)
        .label("y", 1).batchSize(2).build()) {
      NamedBatch b = p.iterator().next();
      assertEquals(3f, b.get("m").getFloat(1, 1, 1));
      assertEquals(1f, b.get("m").getFloat(1, 0, 0));
    }
  }

  @Test
  void padWrapFillsTheLastBatchFromTheStart() {
    try (FeedingProvider p = FeedingProvider.builder(samples(5)).data("image", 0).label("label", 1)
        .batchSize(3).lastBatch(LastBatch.PAD_WRAP).build()) {
      List<NamedBatch> batches = new ArrayList<>();
      for (NamedBatch b : p) {
        batches.add(b.copy());
      }
      assertEquals(2, batches.size());
      NamedBatch last = batches.get(1);
      assertEquals(2, last.countSamples());
      assertEquals(1, last.pad());
      assertArrayEquals(new long[] {3, 4, 0}, last.sampleIndices());
    }
  }

  @Test
  void aSampleOfTheWrongShapeNamesTheFieldAndTheSample() {
    Reader<Tuple> bad = Readers.range(0, 6).map(i -> Tuple.of(i == 4 ? new float[3] : new float[2], i));
    try (FeedingProvider p = FeedingProvider.builder(bad).data("x", 0).label("y", 1).batchSize(2).build()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
        for (NamedBatch b : p) {
          b.countSamples();
        }
      });
      assertTrue(e.getMessage().contains("x") && e.getMessage().contains("4"), e.getMessage());
    }
  }

  /**
   * docs/readers.md: every policy but PAD_CONTINUE, which pads with the next epoch's first samples, a
   * stream reaches only after the epoch ended; build() says so and names the policy that does fit.
   */
  @Test
  void padContinueIsRefusedAtBuildAndTheOtherPoliciesBuild() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FeedingProvider.builder(samples(5))
        .data("image", 0).label("label", 1).batchSize(2).lastBatch(LastBatch.PAD_CONTINUE).build());
    assertTrue(e.getMessage().contains("FeedingProvider") && e.getMessage().contains("PAD_CONTINUE")
        && e.getMessage().contains("PAD_WRAP"), e.getMessage());
    // 5 samples in batches of 2: the last batch is sample 4 alone, handled per policy.
    Map<LastBatch, Integer> batches = new LinkedHashMap<>();
    for (LastBatch policy : LastBatch.values()) {
      if (policy == LastBatch.PAD_CONTINUE) {
        continue;
      }
      try (FeedingProvider p = FeedingProvider.builder(samples(5)).data("image", 0).label("label", 1).batchSize(2)
          .lastBatch(policy).build()) {
        int n = 0;
        for (NamedBatch b : p) {
          n++;
        }
        batches.put(policy, n);
      }
    }
    assertEquals(Map.of(LastBatch.PAD_CONSTANT, 3, LastBatch.PAD_WRAP, 3, LastBatch.DISCARD, 2,
        LastBatch.ROLL_OVER, 2, LastBatch.PARTIAL, 3), batches);
  }

  @Test
  void aFeedFromAMissingColumnIsRejectedAtBuild() {
    assertThrows(IllegalArgumentException.class,
        () -> FeedingProvider.builder(samples(3)).data("image", 0).label("label", 5).batchSize(2).build());
    assertThrows(IllegalArgumentException.class, () -> FeedingProvider.builder(samples(3)).data("a", 0).data("a", 1));
  }

  @Test
  void aBufferedReaderFeedsTheProviderAndEveryEpochRereadsIt() {
    Reader<Tuple> r = samples(10).buffered(4);
    try (FeedingProvider p = FeedingProvider.builder(r).data("image", 0).label("label", 1)
        .batchSize(4).lastBatch(LastBatch.DISCARD).build()) {
      for (int epoch = 0; epoch < 2; epoch++) {
        int batches = 0;
        try (BatchIterator<NamedBatch> it = p.iterator()) {
          while (it.hasNext()) {
            NamedBatch b = it.next();
            assertEquals(4, b.countSamples());
            assertEquals(batches * 4 % 3, b.get("label").getInt(0));
            batches++;
          }
        }
        assertEquals(2, batches);
      }
    }
    try (PipelineIterator<Tuple> it = r.iterator()) {
      assertTrue(it.hasNext());
    }
  }

  /**
   * docs/array-data-provider.md, bad samples: a stream reads each sample once, so a bad sample fails
   * the pass; skip and replace are refused at build, naming the policy, not ignored.
   */
  @Test
  void skippingOrReplacingBadSamplesIsRefusedOnAStream() {
    for (ProviderBuilder.BadSamples policy : List.of(ProviderBuilder.BadSamples.skip(2),
        ProviderBuilder.BadSamples.replace(1))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> FeedingProvider.builder(samples(5)).data("image", 0).label("label", 1).batchSize(2).badSamples(policy)
              .build().close());
      assertTrue(e.getMessage().contains(policy.toString()), "the message should name " + policy + ": " + e);
    }
    // fail(), the default, is what a stream does anyway.
    try (FeedingProvider p = FeedingProvider.builder(samples(5)).data("image", 0).label("label", 1).batchSize(2)
        .badSamples(ProviderBuilder.BadSamples.fail()).build()) {
      int rows = 0;
      for (NamedBatch b : p) {
        rows += b.countSamples();
      }
      assertEquals(5, rows);
    }
  }
}
