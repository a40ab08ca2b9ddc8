package dev.minibatch.samples.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardSource;
import dev.minibatch.shards.ShardWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated shard code of a sample: {@code PixelShards.write} writes samples whose values say
 * which they are (image element k of sample i is i * 10 + k, label i mod 5, weight i / 2), and
 * {@code PixelProvider.builder().shards(location)} reads them back as typed batches.
 */
class GeneratedShardsTest {
  private static final int N = 250;
  @TempDir static Path dir;
  private static String set;

  static Pixel pixel(int i) {
    float[][] image = new float[2][3];
    for (int k = 0; k < 6; k++) {
      image[k / 3][k % 3] = i * 10 + k;
    }
    return new Pixel(image, i / 2.0, i % 5);
  }

  @BeforeAll
  static void write() {
    List<Pixel> samples = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      samples.add(pixel(i));
    }
    set = dir.resolve("pixels").toString();
    ShardSet written = PixelShards.write(samples, set, ShardWriter.builder().samplesPerFile(40).build());
    assertEquals(N, written.samples());
    assertEquals(7, written.files(), "250 samples in files of 40: six full, one of 10");
  }

  /** The ids of a typed batch's samples, every member checked against the id's known values. */
  private static List<Integer> ids(PixelBatch b) {
    List<Integer> ids = new ArrayList<>();
    for (int r = 0; r < b.countSamples(); r++) {
      int id = (int) (b.getImage().getFloat(r, 0, 0) / 10);
      for (int k = 0; k < 6; k++) {
        assertEquals(id * 10 + k, b.getImage().getFloat(r, k / 3, k % 3), "sample " + id + " element " + k);
      }
      assertEquals(id / 2.0, b.getWeight().getDouble(r), "sample " + id + " weight");
      assertEquals(id % 5, b.getLabel().getInt(r), "sample " + id + " label");
      ids.add(id);
    }
    return ids;
  }

  private static List<Integer> epoch(Iterator<PixelBatch> it) {
    List<Integer> ids = new ArrayList<>();
    while (it.hasNext()) {
      ids.addAll(ids(it.next()));
    }
    return ids;
  }

  @Test
  void theGeneratedProviderReadsTheSamplesBackInOrder() {
    try (PixelProvider p = PixelProvider.builder().shards(set).build()) {
      assertEquals(N, p.numSamples());
      List<Integer> ids = epoch(p.iterator());
      assertEquals(N, ids.size());
      for (int i = 0; i < N; i++) {
        assertEquals(i, ids.get(i));
      }
    }
  }

  /** The ids of one epoch of the named provider in batches of 16, shuffled with seed 3 in windows of 64. */
  private static List<Integer> namedOrder() {
    List<Integer> named = new ArrayList<>();
    try (ShardProvider p = ShardProvider.builder(set).batchSize(16).shuffle(true).seed(3).shuffleWindow(64).build()) {
      for (NamedBatch b : p) {
        for (int r = 0; r < b.countSamples(); r++) {
          named.add((int) (b.get(PixelBatch.IMAGE).getFloat(r, 0, 0) / 10));
        }
      }
    }
    return named;
  }

  @Test
  void typedBatchesFollowTheGlobalOrderOfTheNamedProvider() {
    List<Integer> named = namedOrder();
    try (PixelProvider p = PixelProvider.builder()
        .shards(ShardProvider.builder(set).shuffleWindow(64)).shuffle(true).seed(3).build()) {
      assertEquals(named, epoch(p.iterator()));
    }
  }

  @Test
  void settingsMadeOnTheShardBuilderAreHonouredNotDropped() {
    List<Integer> named = namedOrder();
    try (PixelProvider p = PixelProvider.builder()
        .shards(ShardProvider.builder(set).shuffleWindow(64).batchSize(16).shuffle(true).seed(3)).build()) {
      assertEquals(16, p.batchSize());
      assertEquals(3, p.seed());
      assertEquals(named, epoch(p.iterator()));
    }
  }

  @Test
  void readerThreadsSetOnTheShardBuilderWriteTheGeneratedProvidersBatches() {
    List<Integer> named = namedOrder();
    try (PixelProvider p = PixelProvider.builder()
        .shards(ShardProvider.builder(set).shuffleWindow(64).readers(1).prefetchBuffer(2)).shuffle(true).seed(3).build()) {
      Iterator<PixelBatch> it = p.iterator();
      List<Integer> seen = new java.util.ArrayList<>(ids(it.next()));
      assertTrue(Thread.getAllStackTraces().keySet().stream()
          .anyMatch(t -> t.getName().startsWith("minibatch-shard-reader-")), "a reader thread writes the batches");
      seen.addAll(epoch(it));
      assertEquals(named, seen, "the same batches as on the consumer's thread");
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PixelProvider.builder()
        .shards(ShardProvider.builder(set).readers(1)).readers(2).build());
    assertEquals("PixelProvider: the ShardProvider.Builder given to shards(...) and PixelProvider.Builder disagree:"
        + " readers is set twice, to 2 and to 1: set it in one place", e.getMessage());
  }

  @Test
  void aShardSourceCarriesOnlyReadingSettingsAndTheBuilderEveryBatchSetting() {
    ShardSource source = ShardSource.of(set).shuffleWindow(64).build();
    try (PixelProvider p = PixelProvider.builder().shards(source).batchSize(16).shuffle(true).seed(3).build();
        ShardProvider named = ShardProvider.builder(source).batchSize(16).shuffle(true).seed(3).build()) {
      assertEquals(namedOrder(), epoch(p.iterator()));
      assertEquals(N, named.numSamples());
    }
    assertEquals("ShardSource[" + set + ", shuffleWindow(64)]", source.toString());
  }

  @Test
  void aSettingMadeDifferentlyOnBothBuildersIsRefusedNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PixelProvider.builder()
        .shards(ShardProvider.builder(set).batchSize(8).seed(1)).batchSize(16).seed(1).build());
    assertEquals("PixelProvider: the ShardProvider.Builder given to shards(...) and PixelProvider.Builder disagree:"
        + " batchSize is set twice, to 16 and to 8: set it in one place", e.getMessage());
    // Contiguous parts from a generated provider: its own elasticShards(false) is not a conflict.
    try (PixelProvider p = PixelProvider.builder().shards(ShardProvider.builder(set)).elasticShards(false)
        .shard(2, 1).build()) {
      assertEquals(125, epoch(p.iterator()).size());
    }
  }

  @Test
  void theGeneratedProviderResumesAndSharesElastically() {
    List<Integer> rest;
    IterationState state;
    try (PixelProvider p = PixelProvider.builder().shards(set).shuffle(true).seed(8)
        .lastBatch(LastBatch.DISCARD).shard(2, 0).build()) {
      Iterator<PixelBatch> it = p.iterator();
      ids(it.next());
      ids(it.next());
      state = p.saveState();
      rest = epoch(it);
    }
    // Two batches on each of 2 trainers: 4 of the floor(250 / 16) = 15 global batches are done;
    // one trainer of 1 then reads the other 11.
    try (PixelProvider p = PixelProvider.builder().shards(set).shuffle(true).seed(8)
        .lastBatch(LastBatch.DISCARD).build()) {
      p.restoreState(state);
      List<Integer> all = epoch(p.iterator());
      assertEquals(11 * 16, all.size());
      // Trainer 0 of 2 had global batches 4, 6, ..., 14: every other batch of the rest.
      List<Integer> even = new ArrayList<>();
      for (int j = 0; j < 11; j += 2) {
        even.addAll(all.subList(j * 16, j * 16 + 16));
      }
      assertEquals(rest, even);
    }
  }

  @Test
  void samplesOfFixedAndOfVariableMembersGetShardCode() throws Exception {
    for (String sample : List.of("shards.Pixel", "shards.Utter", "sequences.Frames")) {
      assertTrue(Class.forName("dev.minibatch.samples." + sample + "Shards").getMethod("write", Iterable.class,
          String.class).getReturnType() == ShardSet.class, sample);
      Class<?> builder = Class.forName("dev.minibatch.samples." + sample + "Provider$Builder");
      // shards(location), shards(ShardSource), shards(ShardProvider.Builder)
      assertEquals(List.of(ShardProvider.Builder.class, ShardSource.class, String.class), java.util.Arrays.stream(
          builder.getMethods()).filter(m -> m.getName().equals("shards")).map(m -> m.getParameterTypes()[0])
          .sorted(java.util.Comparator.comparing(Class::getName)).toList(), sample);
    }
  }

  @Test
  void aSampleOfOtherArraysCannotReadTheSet() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> WideProvider.builder().shards(set).build());
    assertTrue(e.getMessage().startsWith("WideProvider reads arrays other than the columns of the shard set ")
        && e.getMessage().contains(": array 0 ('image') has sample shape (6,) where the shard set's has (2, 3)"),
        e.getMessage());
  }
}
