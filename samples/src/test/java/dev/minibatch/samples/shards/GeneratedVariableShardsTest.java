package dev.minibatch.samples.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The generated shard code of a sample with variable-length members ({@link Utter}): sample {@code
 * i} has {@link #frames(int)} frames, frame {@code t} = {@code (i * 100 + 2t, i * 100 + 2t + 1)},
 * phone {@code t} = {@code i * 10 + t}, and {@link #channels(int)} channel steps, element {@code
 * [k][t]} = {@code i * 1000 + k * 100 + t} (more than 6 are cut to their last 6 when written, as
 * {@code tooLong = TRUNCATE_START} says). Read back through {@code UtterProvider.builder().shards(...)},
 * every batch must equal the one the same provider makes over the same samples in a List.
 */
class GeneratedVariableShardsTest {
  private static final int N = 150;
  private static final List<String> NAMES = List.of(UtterBatch.FRAMES, UtterBatch.PHONES, UtterBatch.CHANNELS,
      UtterBatch.ID);
  @TempDir static Path dir;
  private static String set;
  private static List<Utter> samples;

  static int frames(int i) {
    return 1 + (i * 5) % 11;
  }

  static int channels(int i) {
    return 1 + i % 9;
  }

  static Utter utter(int i) {
    float[][] frames = new float[frames(i)][2];
    int[] phones = new int[frames(i)];
    for (int t = 0; t < frames.length; t++) {
      frames[t][0] = i * 100 + 2 * t;
      frames[t][1] = i * 100 + 2 * t + 1;
      phones[t] = i * 10 + t;
    }
    float[][] channels = new float[3][channels(i)];
    for (int k = 0; k < 3; k++) {
      for (int t = 0; t < channels(i); t++) {
        channels[k][t] = i * 1000 + k * 100 + t;
      }
    }
    return new Utter(frames, phones, Nd4j.create(channels), i);
  }

  @BeforeAll
  static void write() {
    samples = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      samples.add(utter(i));
    }
    set = dir.resolve("utters").toString();
    ShardSet written = UtterShards.write(samples, set, ShardWriter.builder().samplesPerFile(40).build());
    assertEquals(N, written.samples());
    assertEquals(4, written.files(), "150 samples in files of 40: three full, one of 30");
  }

  /** The ids of a batch, each sample's real steps checked against its known values. */
  private static List<Integer> ids(UtterBatch b) {
    List<Integer> ids = new ArrayList<>();
    for (int r = 0; r < b.countSamples(); r++) {
      int id = (int) b.getId().getLong(r);
      int n = frames(id);
      assertEquals(n, b.getFramesLengths().getInt(r), "frames of sample " + id);
      for (int t = 0; t < n; t++) {
        assertEquals(id * 100 + 2 * t + 1, b.getFrames().getFloat(r, t, 1), "sample " + id + " frame " + t);
        assertEquals(id * 10 + t, b.getPhones().getInt(r, t), "sample " + id + " phone " + t);
      }
      int kept = Math.min(6, channels(id));
      int skipped = channels(id) - kept;
      assertEquals(kept, b.getChannelsLengths().getInt(r));
      for (int t = 0; t < kept; t++) {
        assertEquals(id * 1000 + 200 + skipped + t, b.getChannels().getFloat(r, 2, t), "sample " + id + " [2][" + t + "]");
      }
      ids.add(id);
    }
    return ids;
  }

  /** Every array, mask and length of {@code expected} equals {@code actual}'s. */
  private static void sameBatch(UtterBatch expected, UtterBatch actual, int j) {
    for (String name : NAMES) {
      assertEquals(expected.get(name), actual.get(name), name + " of batch " + j);
      if (!name.equals(UtterBatch.ID) && !name.equals(UtterBatch.PHONES)) {
        assertEquals(expected.mask(name), actual.mask(name), "mask of " + name + " in batch " + j);
        assertEquals(expected.lengths(name), actual.lengths(name), "lengths of " + name + " in batch " + j);
      }
    }
    assertEquals(expected.pad(), actual.pad(), "pad of batch " + j);
  }

  /** The shard source's epoch against the List source's, batch by batch; returns the ids read. */
  private static List<Integer> compare(UnaryOperator<UtterProvider.Builder> shards, List<Utter> inMemoryOrder,
      UnaryOperator<UtterProvider.Builder> settings) {
    List<Integer> ids = new ArrayList<>();
    try (UtterProvider a = shards.apply(settings.apply(UtterProvider.builder())).build();
        UtterProvider b = settings.apply(UtterProvider.builder()).samples(inMemoryOrder).build()) {
      Iterator<UtterBatch> x = a.iterator();
      Iterator<UtterBatch> y = b.iterator();
      int j = 0;
      while (y.hasNext()) {
        UtterBatch expected = y.next();
        UtterBatch actual = x.next();
        ids.addAll(ids(actual));
        sameBatch(expected, actual, j++);
      }
      assertFalse(x.hasNext());
    }
    return ids;
  }

  @Test
  void inOrderTheBatchesAreTheListProvidersPaddedToEachBatchsLongest() {
    List<Integer> ids = compare(b -> b.shards(set), samples, b -> b.batchSize(16).lastBatch(LastBatch.PAD_WRAP));
    assertEquals(N, ids.size(), "10 batches; the 10 rows that wrap are padding, compared above but not counted");
    for (int i = 0; i < N; i++) {
      assertEquals(i, ids.get(i));
    }
    // Known padding: batch 0 (samples 0 .. 15) is 11 frames long; sample 0 has 1, padded with -1 and 7.
    try (UtterProvider p = UtterProvider.builder().shards(set).build()) {
      UtterBatch b = p.iterator().next();
      assertEquals(11, b.getFrames().size(1));
      assertEquals(-1f, b.getFrames().getFloat(0, 1, 0));
      assertEquals(7, b.getPhones().getInt(0, 1));
      assertEquals(0f, b.getFramesMask().getFloat(0, 1));
      assertEquals(6, b.getChannels().size(2), "channels are cut to 6 when written");
    }
  }

  @Test
  void shuffledTheBatchesAreTheListProvidersOverTheSamplesInTheGlobalOrder() {
    List<Integer> order = new ArrayList<>();
    try (ShardProvider p = ShardProvider.builder(set).batchSize(16).shuffle(true).seed(3).shuffleWindow(50).build()) {
      p.forEach(b -> {
        for (int r = 0; r < b.countSamples(); r++) {
          order.add((int) b.get(UtterBatch.ID).getLong(r));
        }
      });
    }
    List<Utter> reordered = new ArrayList<>();
    for (int id : order) {
      reordered.add(samples.get(id));
    }
    assertEquals(order, compare(b -> b.shards(ShardProvider.builder(set).shuffleWindow(50)).shuffle(true).seed(3),
        reordered, b -> b.batchSize(16)));
    // Fixed lengths: every batch padded to the bound (frames: the longest sample, 11; channels: maxLength 6).
    compare(b -> b.shards(set), samples, b -> b.batchSize(16).fixedLength(true));
  }

  @Test
  void theGeneratedProviderResumesAndSharesElastically() {
    List<Integer> rest;
    IterationState state;
    try (UtterProvider p = UtterProvider.builder().shards(set).shuffle(true).seed(8)
        .lastBatch(LastBatch.DISCARD).shard(2, 0).build()) {
      Iterator<UtterBatch> it = p.iterator();
      ids(it.next());
      ids(it.next());
      state = p.saveState();
      rest = new ArrayList<>();
      while (it.hasNext()) {
        rest.addAll(ids(it.next()));
      }
    }
    // 4 of the floor(150 / 16) = 9 global batches are done; one trainer reads the other 5.
    try (UtterProvider p = UtterProvider.builder().shards(set).shuffle(true).seed(8)
        .lastBatch(LastBatch.DISCARD).build()) {
      p.restoreState(state);
      List<Integer> all = new ArrayList<>();
      for (UtterBatch b : p) {
        all.addAll(ids(b));
      }
      assertEquals(5 * 16, all.size());
      List<Integer> even = new ArrayList<>();
      for (int j = 0; j < 5; j += 2) {
        even.addAll(all.subList(j * 16, j * 16 + 16));
      }
      assertEquals(rest, even);
    }
  }

  @Test
  void bucketsAreRefusedAtBuildNamingTheSetting() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> UtterProvider.builder().shards(set).buckets(4, 8, 11).build());
    assertTrue(e.getMessage().contains("buckets(...) cannot be honoured from a shard set"), e.getMessage());
  }

  @Test
  void aFixedSampleCannotReadAVariableSet() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PixelProvider.builder().shards(set).build());
    assertTrue(e.getMessage().contains("array 0 is named 'image' where the shard set's is named 'frames'")
        && e.getMessage().contains("the set holds [frames DATA FLOAT32 [VARIABLE,2]"), e.getMessage());
  }
}
