package dev.minibatch.samples.iris;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.csv.CsvTable;
import java.util.List;
import org.junit.jupiter.api.Test;

class IrisSampleTest {
  @Test
  void theBundledFileIsFishersIris() {
    CsvTable t = IrisSample.load();
    assertEquals(150, t.rows());
    assertEquals(List.of("setosa", "versicolor", "virginica"), t.classNames());
    int[] counts = new int[3];
    for (int i = 0; i < 150; i++) {
      counts[(int) t.labels().getDouble(i)]++;
    }
    assertEquals(List.of(50, 50, 50), java.util.Arrays.stream(counts).boxed().toList());
    // Row 1: 5.1,3.5,1.4,0.2,setosa
    assertEquals(5.1, t.data().getDouble(0), 1e-6);
    assertEquals(0.2, t.data().getDouble(3), 1e-6);
  }

  @Test
  void aTinyNetworkReachesNinetyPercentOnHeldOutFlowers() {
    double accuracy = IrisSample.trainAndTest(60, 1);
    assertTrue(accuracy >= 0.90, "held-out accuracy " + accuracy);
  }
}
