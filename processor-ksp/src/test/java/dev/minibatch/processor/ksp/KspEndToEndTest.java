package dev.minibatch.processor.ksp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tschuchort.compiletesting.KotlinCompilation;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Code KSP2 generated compiles with the Kotlin that uses it, and the provider built from it
 * delivers the batches: five points in batches of two, the last padded by wrapping around
 * (PAD_WRAP), each value known by construction.
 */
class KspEndToEndTest {
  static final String APP = """
      package demo

      import dev.minibatch.DataProvider
      import dev.minibatch.LastBatch
      import dev.minibatch.Provides

      @DataProvider(batchSize = 2)
      class Point(
          @field:Provides(shape = [2]) val xy: FloatArray,
          @Provides(label = true) val cls: Int,
      )

      fun summary(): String {
          val points = (0 until 5).map { i -> Point(floatArrayOf(i.toFloat(), 10f * i), i % 3) }
          return PointProvider.create { it.samples(points).lastBatch(LastBatch.PAD_WRAP) }.use { provider ->
              provider.joinToString(" | ") { b ->
                  "${b.rows()} rows ${b.pad()} pad xy=${b.xy.toFloatMatrix().map { it.toList() }} cls=${b.cls.toIntVector().toList()}"
              }
          }
      }
      """;

  @Test
  void theProviderKsp2GeneratedDeliversTheKnownBatches() throws Exception {
    Ksp2.Run run = Ksp2.run(List.of(Ksp2.kotlin("App.kt", APP)), Map.of());
    assertEquals(List.of(), run.errors());
    assertEquals(KotlinCompilation.ExitCode.OK, run.result().getExitCode(), run.result()::getMessages);
    Object summary = run.result().getClassLoader().loadClass("demo.AppKt").getMethod("summary").invoke(null);
    // Point i is (i, 10 i) with class i % 3; the third batch is point 4 and, wrapped around, point 0.
    assertEquals("2 rows 0 pad xy=[[0.0, 0.0], [1.0, 10.0]] cls=[0, 1]"
        + " | 2 rows 0 pad xy=[[2.0, 20.0], [3.0, 30.0]] cls=[2, 0]"
        + " | 2 rows 1 pad xy=[[4.0, 40.0], [0.0, 0.0]] cls=[1, 0]", summary);
  }
}
