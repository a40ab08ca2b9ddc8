package dev.minibatch.samples.ksp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * This module's Maven build ran KSP2 (not kapt or javac's processing, which are off) and the
 * providers it generated deliver the known batches.
 */
class KspMavenBuildTest {
  @Test
  void ksp2WroteTheProvidersAndTheManifests() {
    Path java = Path.of("target", "generated-sources", "ksp", "java", "dev", "minibatch", "samples", "ksp");
    for (String name : List.of("PointProvider.java", "PointBatch.java", "ReadingProvider.java", "ReadingBatch.java")) {
      assertTrue(Files.isRegularFile(java.resolve(name)), name);
    }
    // The Kotlin sample's DSL (pointBatches() uses it); none for the Java sample.
    Path kotlin = Path.of("target", "generated-sources", "ksp", "kotlin", "dev", "minibatch", "samples", "ksp");
    assertTrue(Files.isRegularFile(kotlin.resolve("PointProviderDsl.kt")));
    assertFalse(Files.exists(kotlin.resolve("ReadingProviderDsl.kt")));
    assertTrue(Files.isRegularFile(Path.of("target", "classes", "META-INF", "minibatch",
        "dev.minibatch.samples.ksp.PointProvider.properties")));
  }

  @Test
  void theKotlinSamplesProviderFromItsDslDeliversTheKnownBatches() {
    // Point i is (i, 10 i) with class i % 3; the third batch is point 4 and, wrapped around, point 0.
    assertEquals(List.of(
        "2 rows 0 pad xy=[[0.0, 0.0], [1.0, 10.0]] cls=[0, 1]",
        "2 rows 0 pad xy=[[2.0, 20.0], [3.0, 30.0]] cls=[2, 0]",
        "2 rows 1 pad xy=[[4.0, 40.0], [0.0, 0.0]] cls=[1, 0]"), PointsKt.pointBatches());
  }

  @Test
  void theJavaSamplesProviderDeliversTheKnownBatches() {
    // Three readings in batches of two; the last batch is short (the default LastBatch keeps it).
    assertEquals(List.of(List.of(0, 1), List.of(1)), PointsKt.readingAlarms());
  }

  @Test
  void theTokenLinesArePackedThroughTheKsp2GeneratedFrontEnd() {
    // 1 2 3 | 4 | 5 6 concatenated and cut every 3 ids: rows [1 2 3] and [4 5 6], where 4 is the second
    // row's first segment and 5 6 its second; two rows a batch (declared): one batch.
    assertEquals(List.of(new kotlin.Pair<>(List.of(List.of(1, 2, 3), List.of(4, 5, 6)),
        List.of(List.of(1, 1, 1), List.of(1, 2, 2)))), PointsKt.packedTokenLines());
    assertTrue(Files.isRegularFile(Path.of("target", "generated-sources", "ksp", "java", "dev", "minibatch", "samples",
        "ksp", "TokenLinePackedBatch.java")));
  }
}
