package dev.minibatch.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.spi.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;

/**
 * One global seeded order: the batches (their samples' ids, in order) do not depend on how many
 * partitions the data sits in or how many trainers read it; shards are disjoint and covering; the
 * order is the hand-computed Fisher–Yates permutation of (seed, epoch).
 */
class GlobalOrderTest {
  private static final int N = 23;
  private static final long SEED = 42;
  private static SparkSession spark;
  private static JavaSparkContext jsc;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start();
    jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** The points 0..N-1, shuffled (so input order says nothing), in {@code partitions} partitions. */
  private static SparkSamples<Point, PointProvider> samples(int partitions) {
    List<Point> points = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      points.add(Point.of(i));
    }
    Collections.shuffle(points, new java.util.Random(partitions));
    JavaRDD<Point> rdd = jsc.parallelize(points, partitions);
    return SparkSamples.builder(PointSparkRows.INSTANCE).fromRdd(spark, rdd);
  }

  /** The Fisher–Yates permutation the engine documents: SplittableRandom(Seeds.derive(seed, epoch)). */
  private static int[] permutation(long seed, int epoch) {
    int[] order = new int[N];
    for (int i = 0; i < N; i++) {
      order[i] = i;
    }
    SplittableRandom rng = new SplittableRandom(Seeds.derive(seed, epoch));
    for (int i = N - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }

  private static int[] ids(INDArray labels) {
    return labels.toIntVector();
  }

  private static List<int[]> batchIds(List<MultiDataSet> batches) {
    List<int[]> out = new ArrayList<>();
    for (MultiDataSet m : batches) {
      out.add(ids(m.getLabels(0)));
      // the features came through the same row: x[0][0] is the id
      INDArray x = m.getFeatures(0);
      for (int r = 0; r < x.size(0); r++) {
        assertEquals(out.get(out.size() - 1)[r], x.getFloat(r, 0, 0), 0, "features and labels of one row");
        assertEquals(out.get(out.size() - 1)[r] + 2.5f, x.getFloat(r, 1, 2), 0);
      }
    }
    return out;
  }

  @Test
  void executorBatchesAreTheSameForAnyPartitionCount() {
    ProviderSettings settings = b -> b.batchSize(5).shuffle(true).seed(SEED).lastBatch(LastBatch.PARTIAL);
    int[] perm = permutation(SEED, 1);
    List<int[]> expected = new ArrayList<>();
    for (int from = 0; from < N; from += 5) {
      expected.add(Arrays.copyOfRange(perm, from, Math.min(N, from + 5)));
    }
    for (int partitions : new int[] {1, 2, 7}) {
      SparkSamples<Point, PointProvider> s = samples(partitions);
      assertEquals(N, s.count());
      List<int[]> got = batchIds(s.batches(settings).multiDataSets(1).collect());
      assertEquals(expected.size(), got.size(), partitions + " partitions");
      for (int j = 0; j < got.size(); j++) {
        assertArrayEquals(expected.get(j), got.get(j), partitions + " partitions, batch " + j);
      }
      s.unpersist();
    }
  }

  @Test
  void paddingAndShardsFollowTheEngine() {
    // PAD_CONSTANT: 23 = 4 * 5 + 3, the last batch gets 2 rows of the label padding -1.
    SparkSamples<Point, PointProvider> s = samples(3);
    List<MultiDataSet> padded = s.batchesBuilder(b -> b.batchSize(5).lastBatch(LastBatch.PAD_CONSTANT).labelPadding(-1))
        .partitions(2).build().multiDataSets(0).collect();
    assertEquals(5, padded.size());
    assertArrayEquals(new int[] {20, 21, 22, -1, -1}, ids(padded.get(4).getLabels(0)));
    assertArrayEquals(new int[] {0, 1, 2, 3, 4}, ids(padded.get(0).getLabels(0)));
    List<DataSet> asDataSets = s.batches(b -> b.batchSize(5).lastBatch(LastBatch.PAD_CONSTANT).labelPadding(-1))
        .dataSets(0).collect();
    assertArrayEquals(new int[] {20, 21, 22, -1, -1}, ids(asDataSets.get(4).getLabels()));
    assertEquals(19f, asDataSets.get(3).getFeatures().getFloat(4, 0, 0), 0);
    // Shard 1 of 2, no shuffle: samples [11, 23), batches of 4, DISCARD.
    List<MultiDataSet> shard = s.batchesBuilder(b -> b.batchSize(4).lastBatch(LastBatch.DISCARD)).shard(2, 1).build()
        .multiDataSets(0).collect();
    assertEquals(3, shard.size());
    assertArrayEquals(new int[] {11, 12, 13, 14}, ids(shard.get(0).getLabels(0)));
    assertArrayEquals(new int[] {19, 20, 21, 22}, ids(shard.get(2).getLabels(0)));
    s.unpersist();
  }

  @Test
  void trainersReadDisjointCoveringShardsOfTheOneOrder(@TempDir Path dir) {
    SparkSamples<Point, PointProvider> s = samples(7);
    MaterializedSamples<Point, PointProvider> written = s.materialize(dir.resolve("points").toString());
    s.unpersist();
    MaterializedSamples<Point, PointProvider> m =
        MaterializedSamples.open(spark, dir.resolve("points").toString(), PointSparkRows.INSTANCE);
    assertEquals(N, m.count());
    assertEquals(written.count(), m.count());
    ProviderSettings settings = b -> b.batchSize(3).shuffle(true).seed(SEED);
    for (int epoch = 0; epoch < 2; epoch++) {
      int[] perm = permutation(SEED, epoch);
      // one trainer: the whole permutation
      assertArrayEquals(perm, readEpoch(m.provider(0, 1, settings), epoch));
      // four trainers: blocks [floor(p*23/4), floor((p+1)*23/4)) of it: 5, 6, 6, 6 samples
      List<Integer> concatenated = new ArrayList<>();
      Set<Integer> seen = new HashSet<>();
      int[] bounds = {0, 5, 11, 17, 23};
      for (int p = 0; p < 4; p++) {
        int[] shard = readEpoch(m.provider(p, 4, settings), epoch);
        assertArrayEquals(Arrays.copyOfRange(perm, bounds[p], bounds[p + 1]), shard, "epoch " + epoch + " trainer " + p);
        for (int id : shard) {
          assertTrue(seen.add(id), "sample " + id + " in two shards");
          concatenated.add(id);
        }
      }
      assertEquals(N, seen.size(), "shards cover the data");
      assertEquals(N, concatenated.size());
    }
    // Resume is the engine's: trainer 2 saves its state after 1 of epoch 0's 2 batches; a new
    // provider restored from it delivers the same rest, perm[14..17) (block [11, 17), batches of 3).
    try (PointProvider a = m.provider(2, 4, settings); PointProvider b = m.provider(2, 4, settings)) {
      dev.minibatch.runtime.BatchIterator<PointBatch> it = a.iterator();
      it.next();
      dev.minibatch.runtime.IterationState state = a.saveState();
      int[] rest = it.next().getY().toIntVector();
      it.close();
      b.restoreState(state);
      dev.minibatch.runtime.BatchIterator<PointBatch> resumed = b.iterator();
      assertArrayEquals(rest, resumed.next().getY().toIntVector());
      assertArrayEquals(Arrays.copyOfRange(permutation(SEED, 0), 14, 17), rest);
      resumed.close();
    }
  }

  /** The ids a provider delivers in epoch {@code epoch} (earlier epochs are skipped). */
  private static int[] readEpoch(PointProvider p, int epoch) {
    try (p) {
      int[] out = null;
      for (int e = 0; e <= epoch; e++) {
        List<Integer> ids = new ArrayList<>();
        for (PointBatch b : p) {
          int[] l = b.getY().toIntVector();
          for (int r = 0; r < b.countSamples(); r++) {
            ids.add(l[r]);
          }
        }
        out = ids.stream().mapToInt(Integer::intValue).toArray();
      }
      return out;
    }
  }

  @Test
  void savedBatchesReadBackInOrder(@TempDir Path dir) throws Exception {
    SparkSamples<Point, PointProvider> s = samples(2);
    SparkBatches<Point, PointProvider> batches = s.batches(b -> b.batchSize(6).lastBatch(LastBatch.PARTIAL));
    List<String> paths = batches.save(dir.resolve("ds").toString(), 0, SparkBatches.Format.DATA_SET);
    assertEquals(4, paths.size());
    assertTrue(paths.get(3).endsWith("dataset-3.bin"), paths.get(3));
    DataSetIterator it = SavedBatches.dataSets(dir.resolve("ds"));
    List<int[]> read = new ArrayList<>();
    while (it.hasNext()) {
      DataSet d = it.next();
      read.add(ids(d.getLabels()));
    }
    assertEquals(4, read.size());
    assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, read.get(0));
    assertArrayEquals(new int[] {18, 19, 20, 21, 22}, read.get(3));

    batches.save(dir.resolve("mds").toString(), 0, SparkBatches.Format.MULTI_DATA_SET);
    MultiDataSetIterator m = SavedBatches.multiDataSets(dir.resolve("mds"));
    int count = 0;
    while (m.hasNext()) {
      assertArrayEquals(read.get(count), ids(m.next().getLabels(0)));
      count++;
    }
    assertEquals(4, count);
    assertTrue(Files.exists(dir.resolve("mds").resolve("multidataset-0.bin")));
    s.unpersist();
  }

  @Test
  void aBadRecordOnAnExecutorSurfacesWithItsPlaceAndCause() {
    List<Point> points = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      points.add(Point.of(i));
    }
    points.set(5, new Point(new float[3][3], 5)); // 3 rows where the shape says 2
    JavaRDD<Point> rdd = jsc.parallelize(points, 2); // [0..3], [4..7]: the bad one is record 1 of partition 1
    SparkSampleException e = assertThrows(SparkSampleException.class,
        () -> SparkSamples.builder(PointSparkRows.INSTANCE).fromRdd(spark, rdd));
    assertEquals("record 1 of input partition 1: Point.x: an array of dimension 0 has 3 elements, expected 2 (shape [2, 3])",
        e.getMessage());
    assertEquals(-1, e.index());
    assertTrue(e.getCause() instanceof IllegalArgumentException);
  }
}
