package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.internal.settings.Sampling;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** One immutable value holds every shared setting; builders compose it, and two values merge or refuse. */
class SettingsTest {
  private static final class Probe extends ProviderBuilder<Probe> {
    Settings value() {
      return settings();
    }
  }

  @Test
  void anUnsetValueReadsAsTheDocumentedDefaults() {
    Settings none = Settings.none();
    assertEquals(OptionalInt.empty(), none.batchSize());
    assertEquals(OptionalLong.empty(), none.seed());
    assertEquals(LastBatch.PARTIAL, none.lastBatch());
    assertFalse(none.shuffle());
    assertEquals(new Settings.Sharding(1, 0, false, false), none.sharding());
    assertEquals(0.0, none.padding().valueFor("x", false));
    assertEquals(BadSamples.fail(), none.badSamples());
    assertEquals(new Settings.Workers(0, 0), none.workers());
    assertEquals("Settings[]", none.toString());
  }

  @Test
  void theBuilderSettersOfEveryProviderBuilderOnlyBuildTheValue() {
    Settings set = new Probe().batchSize(32).lastBatch(LastBatch.PAD_CONSTANT).shuffle(true).seed(7).shard(4, 1)
        .evenShards(true).padding("y", -1).dataPadding(0.5).badSamples(BadSamples.skip(3)).readers(2).prefetchBuffer(5)
        .value();
    Settings same = Settings.builder().batchSize(32).lastBatch(LastBatch.PAD_CONSTANT).shuffle(true).seed(7).shard(4, 1)
        .evenShards(true).padding("y", -1).dataPadding(0.5).badSamples(BadSamples.skip(3)).readers(2).prefetchBuffer(5)
        .build();
    assertEquals(same, set);
    assertEquals(same.hashCode(), set.hashCode());
    assertEquals("Settings[batchSize(32), lastBatch(PAD_CONSTANT), shuffle(true), seed(7), shard(4, 1), evenShards(true),"
        + " padding(\"y\", -1.0), dataPadding(0.5), badSamples(skip(3)), readers(2), prefetchBuffer(5)]", set.toString());
    assertEquals(new Settings.Workers(2, 5), set.workers());
    assertEquals(new Settings.Sharding(4, 1, true, false), set.sharding());
    assertEquals(-1.0, set.padding().valueFor("y", true));
    assertEquals(0.5, set.padding().valueFor("x", false));
    assertEquals(0.0, set.padding().valueFor("x", true));
    assertEquals(3, set.badSamples().budget(1000));
    assertEquals(set, set.toBuilder().build());
    assertNotEquals(set, set.toBuilder().seed(8).build());
  }

  @Test
  void aValueHandedToABuilderSetsWhatItSetsAndKeepsTheRest() {
    Settings shared = Settings.builder().shuffle(true).seed(11).build();
    Settings mine = new Probe().batchSize(16).settings(shared).value();
    assertEquals(Settings.builder().batchSize(16).shuffle(true).seed(11).build(), mine);
    try (ArrayDataProvider p = ArrayDataProvider.builder().data("x", new float[] {0, 1, 2, 3}).batchSize(2)
        .settings(shared).build()) {
      assertEquals(11, p.seed());
      assertEquals(2, p.batchSize());
    }
  }

  @Test
  void mergingJoinsWhatEitherSetsAndRefusesADisagreementNamingTheSettingAndBothValues() {
    Settings a = Settings.builder().batchSize(32).padding("x", 1).build();
    Settings b = Settings.builder().shuffle(true).seed(5).padding("y", 2).build();
    assertEquals(Settings.builder().batchSize(32).shuffle(true).seed(5).padding("x", 1).padding("y", 2).build(), a.merge(b));
    assertEquals(a, a.merge(Settings.builder().batchSize(32).build()), "the same value on both sides is no conflict");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> a.merge(Settings.builder().batchSize(64).build()));
    assertEquals("batchSize is set twice, to 32 and to 64: set it in one place", e.getMessage());
    IllegalArgumentException pad = assertThrows(IllegalArgumentException.class,
        () -> a.merge(Settings.builder().padding("x", 3).build()));
    assertEquals("padding of 'x' is set twice, to 1.0 and to 3.0: set it in one place", pad.getMessage());
  }

  @Test
  void resolvingDrawsTheSeedOnceAndNeedsABatchSize() {
    Settings unseeded = Settings.builder().batchSize(4).shuffle(true).build();
    Sampling s = Sampling.resolve(unseeded);
    assertFalse(s.seeded());
    assertEquals(OptionalLong.empty(), unseeded.seed(), "resolving does not change the value");
    Sampling seeded = Sampling.resolve(unseeded.toBuilder().seed(9).build());
    assertTrue(seeded.seeded());
    assertEquals(9, seeded.seed());
    IllegalStateException none = assertThrows(IllegalStateException.class, () -> Sampling.resolve(Settings.none()));
    assertTrue(none.getMessage().startsWith("no batch size: call batchSize(n) on the builder"), none.getMessage());
  }

  @Test
  void shardArgumentsAreCheckedWhereTheyAreSet() {
    assertEquals("numParts must be >= 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> Settings.builder().shard(0, 0)).getMessage());
    assertEquals("partIndex must be in [0, 3), got 3",
        assertThrows(IllegalArgumentException.class, () -> new Probe().shard(3, 3)).getMessage());
    assertEquals(Map.of("z", 4.0), Settings.builder().padding("z", 4).build().padding().byName());
  }

  @Test
  void readerThreadsFollowOneRingRuleAndAreRefusedWhereTheyCannotBeHonoured() {
    // The ring rule itself: internal.engine's ReaderThreadsTest.
    assertEquals("readers must be >= 0 (0 = the consumer's thread), got -1",
        assertThrows(IllegalArgumentException.class, () -> new Probe().readers(-1)).getMessage());
    assertEquals("prefetchBuffer must be >= 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> Settings.builder().prefetchBuffer(0)).getMessage());
    IllegalArgumentException alone = assertThrows(IllegalArgumentException.class, () -> ArrayDataProvider.builder()
        .data("x", new float[] {0, 1, 2, 3}).batchSize(2).prefetchBuffer(3).build());
    assertEquals("prefetchBuffer(3) is how far reader threads write ahead, and readers is 0 (the consumer's thread"
        + " writes each batch): set readers(n) too, or leave prefetchBuffer unset", alone.getMessage());
    assertEquals("readers is set twice, to 2 and to 4: set it in one place", assertThrows(IllegalArgumentException.class,
        () -> Settings.builder().readers(2).build().merge(Settings.builder().readers(4).build())).getMessage());
  }
}
