package dev.minibatch.processor.ksp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tschuchort.compiletesting.JvmCompilationResult;
import com.tschuchort.compiletesting.KotlinCompilation;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Code KSP2 generated compiles with the Kotlin that uses it, and the provider built from it
 * delivers the batches: five points in batches of two, the last padded by wrapping around
 * (PAD_WRAP), each value known by construction. The same app through the generated Kotlin DSL, its
 * list and shard-set sources included, and a data class with default values, under KSP2 and under
 * kapt.
 */
class KspEndToEndTest {
  static final String APP = """
      package demo

      import dev.minibatch.DataProvider
      import dev.minibatch.LastBatch
      import dev.minibatch.Provides
      import dev.minibatch.shards.ShardProvider

      @DataProvider(batchSize = 2)
      class Point(
          @field:Provides(shape = [2]) val xy: FloatArray,
          @Provides(label = true) val cls: Int,
      )

      /** A data class whose members have default values. */
      @DataProvider(batchSize = 2)
      data class Setting(
          @field:Provides(shape = [2]) val gains: FloatArray = floatArrayOf(1f, 0.5f),
          @Provides val level: Double = 0.25,
          @Provides(label = true) val mode: Int = 3,
      )

      /** The defaults, one member set, a copy: batches of two, the last partial. */
      fun settings(): List<String> {
          val base = Setting()
          val samples = listOf(base, Setting(level = 2.0), base.copy(gains = floatArrayOf(4f, 8f), mode = 1))
          return settingProvider { samples(samples) }.use { provider ->
              provider.map { b ->
                  "gains=${b.gains.toFloatMatrix().map { it.toList() }} level=${b.level.toDoubleVector().toList()} mode=${b.mode.toIntVector().toList()}"
              }
          }
      }

      fun points() = (0 until 5).map { i -> Point(floatArrayOf(i.toFloat(), 10f * i), i % 3) }

      fun describe(provider: PointProvider): String = provider.use { p ->
          p.joinToString(" | ") { b ->
              "${b.rows()} rows ${b.pad()} pad xy=${b.xy.toFloatMatrix().map { it.toList() }} cls=${b.cls.toIntVector().toList()}"
          }
      }

      fun summary(): String = describe(PointProvider.create { it.samples(points()).lastBatch(LastBatch.PAD_WRAP) })

      fun dslSummary(): String = describe(pointProvider {
          samples(points())
          lastBatch = LastBatch.PAD_WRAP
      })

      /** Writes the points as a shard set in [dir], then reads it back three ways through the DSL. */
      fun shardSummaries(dir: String): List<String> {
          PointShards.write(points(), dir)
          return listOf(
              describe(pointProvider {
                  shards(dir)
                  batchSize = 3
                  lastBatch = LastBatch.DISCARD
              }),
              // shards(...) turns elastic shards on: part 1 of 2 gets global batch 1 of 0 1 | 2 3 | 4.
              describe(pointProvider {
                  shards(ShardProvider.builder(dir))
                  shard(2, 1)
              }),
              // Set, elasticShards wins whatever the order: the contiguous block [floor(5/2), 5).
              describe(pointProvider {
                  elasticShards = false
                  shard(2, 1)
                  shards(dir)
              }),
          )
      }
      """;

  /** Point i is (i, 10 i) with class i % 3; the third batch is point 4 and, wrapped around, point 0. */
  static final String PAD_WRAP = "2 rows 0 pad xy=[[0.0, 0.0], [1.0, 10.0]] cls=[0, 1]"
      + " | 2 rows 0 pad xy=[[2.0, 20.0], [3.0, 30.0]] cls=[2, 0]"
      + " | 2 rows 1 pad xy=[[4.0, 40.0], [0.0, 0.0]] cls=[1, 0]";

  /** The shard set read back: the first three points; points 2 and 3; points 2, 3, then 4 alone. */
  static final List<String> SHARDS = List.of(
      "3 rows 0 pad xy=[[0.0, 0.0], [1.0, 10.0], [2.0, 20.0]] cls=[0, 1, 2]",
      "2 rows 0 pad xy=[[2.0, 20.0], [3.0, 30.0]] cls=[2, 0]",
      "2 rows 0 pad xy=[[2.0, 20.0], [3.0, 30.0]] cls=[2, 0] | 1 rows 0 pad xy=[[4.0, 40.0]] cls=[1]");

  /**
   * The data class's batches: the first two samples keep the default gains (1, 0.5) and mode 3, the
   * second sets level 2; the third is a copy with gains (4, 8) and mode 1, alone in a partial batch.
   */
  static final List<String> SETTINGS = List.of(
      "gains=[[1.0, 0.5], [1.0, 0.5]] level=[0.25, 2.0] mode=[3, 3]",
      "gains=[[4.0, 8.0]] level=[0.25] mode=[1]");

  @TempDir Path shards;

  @Test
  void theProviderKsp2GeneratedDeliversTheKnownBatches() throws Exception {
    Ksp2.Run run = Ksp2.run(List.of(Ksp2.kotlin("App.kt", APP)), Map.of());
    assertEquals(List.of(), run.errors());
    assertEquals(KotlinCompilation.ExitCode.OK, run.result().getExitCode(), run.result()::getMessages);
    Class<?> app = run.result().getClassLoader().loadClass("demo.AppKt");
    assertEquals(PAD_WRAP, app.getMethod("summary").invoke(null));
    assertEquals(PAD_WRAP, app.getMethod("dslSummary").invoke(null));
    assertEquals(SHARDS, app.getMethod("shardSummaries", String.class).invoke(null, shards.resolve("ksp").toString()));
    assertEquals(SETTINGS, app.getMethod("settings").invoke(null));
  }

  @Test
  void theDslKaptGeneratedDeliversTheSameBatches() throws Exception {
    KotlinCompilation kapt = Ksp2.kapt(List.of(Ksp2.kotlin("App.kt", APP)));
    JvmCompilationResult result = kapt.compile();
    assertEquals(KotlinCompilation.ExitCode.OK, result.getExitCode(), result::getMessages);
    Class<?> app = result.getClassLoader().loadClass("demo.AppKt");
    assertEquals(PAD_WRAP, app.getMethod("dslSummary").invoke(null));
    assertEquals(SHARDS, app.getMethod("shardSummaries", String.class).invoke(null, shards.resolve("kapt").toString()));
    assertEquals(SETTINGS, app.getMethod("settings").invoke(null));
  }
}
