package dev.minibatch.runtime.io.hdf5;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ClassSamplerTest {
  @Test
  void withoutWrappingAnEpochHoldsEverySampleOnceAndEachClassInItsOwnOrder() {
    int[] counts = {50, 30, 20};
    ClassSampler s = new ClassSampler(counts, new double[] {1, 1, 2}, false, false, 7, -1);
    assertEquals(100, s.epochLength());
    int[] out = new int[100];
    s.epoch(0, out);
    int[] sorted = out.clone();
    Arrays.sort(sorted);
    for (int i = 0; i < 100; i++) {
      assertEquals(i, sorted[i]);
    }
    // Without shuffle, each class's samples come in order: 0..49, 50..79, 80..99.
    int[] last = {-1, 49, 79};
    for (int i : out) {
      int c = s.classOf(i);
      assertTrue(i > last[c], "class " + c + " out of order at " + i);
      last[c] = i;
    }
  }

  @Test
  void withWrappingTheClassProportionsFollowTheProbabilities() {
    // Class 1 has 3 samples but probability 0.5: it wraps around many times.
    ClassSampler s = new ClassSampler(new int[] {1000, 3}, new double[] {0.5, 0.5}, true, true, 11, 20000);
    int[] out = new int[20000];
    s.epoch(0, out);
    int[] perClass = new int[2];
    int[] perSample = new int[3];
    for (int i : out) {
      perClass[s.classOf(i)]++;
      if (i >= 1000) {
        perSample[i - 1000]++;
      }
    }
    // Binomial(20000, 0.5): 4 standard deviations are ~283.
    assertTrue(Math.abs(perClass[1] - 10000) < 283, Arrays.toString(perClass));
    // Wrapping visits the small class's samples in turn: counts differ by at most one.
    int max = Arrays.stream(perSample).max().getAsInt();
    int min = Arrays.stream(perSample).min().getAsInt();
    assertTrue(max - min <= 1, Arrays.toString(perSample));
  }

  @Test
  void theOrderIsAPureFunctionOfSeedAndEpoch() {
    int[] counts = {40, 25, 35};
    double[] p = {0.2, 0.3, 0.5};
    int[] a = new int[100];
    int[] b = new int[100];
    int[] c = new int[100];
    new ClassSampler(counts, p, false, true, 3, -1).epoch(4, a);
    new ClassSampler(counts, p, false, true, 3, -1).epoch(4, b);
    new ClassSampler(counts, p, false, true, 3, -1).epoch(5, c);
    assertArrayEquals(a, b);
    assertFalse(Arrays.equals(a, c));
  }

  @Test
  void classesOfProbabilityZeroComeLastWithoutWrappingAndNeverWithWrapping() {
    ClassSampler s = new ClassSampler(new int[] {5, 4}, new double[] {1, 0}, false, false, 1, -1);
    int[] out = new int[9];
    s.epoch(0, out);
    assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8}, out);
    ClassSampler w = new ClassSampler(new int[] {5, 4}, new double[] {1, 0}, true, false, 1, 12);
    int[] wout = new int[12];
    w.epoch(0, wout);
    assertArrayEquals(new int[] {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1}, wout);
  }

  @Test
  void invalidSettingsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new ClassSampler(new int[] {1}, new double[] {-1}, false, false, 0, -1));
    assertThrows(IllegalArgumentException.class, () -> new ClassSampler(new int[] {1, 1}, new double[] {0, 0}, false, false, 0, -1));
    assertThrows(IllegalArgumentException.class, () -> new ClassSampler(new int[] {1}, new double[] {1}, false, false, 0, 5));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new ClassSampler(new int[] {0, 4}, new double[] {1, 0}, true, false, 0, -1));
    assertTrue(e.getMessage().contains("positive probability needs samples"), e.getMessage());
  }
}
