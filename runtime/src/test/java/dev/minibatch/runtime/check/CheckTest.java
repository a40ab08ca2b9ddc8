package dev.minibatch.runtime.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class CheckTest {
  private static String failure(Runnable check) {
    return assertThrows(IllegalArgumentException.class, check::run).getMessage();
  }

  @Test
  void atLeastReturnsTheValueAtAndAboveTheBound() {
    assertEquals(0, Check.atLeast("readers", 0, 0));
    assertEquals(7, Check.atLeast("readers", 7, 0));
    assertEquals(1, Check.atLeast("workers", 1, 1));
    assertEquals(5_000_000_000L, Check.atLeast("rows", 5_000_000_000L, 1L));
    assertEquals(Integer.MAX_VALUE, Check.atLeast("n", Integer.MAX_VALUE, Integer.MIN_VALUE));
  }

  @Test
  void atLeastNamesTheArgumentTheBoundAndTheValueJustBelow() {
    assertEquals("readers must be >= 0, got -1", failure(() -> Check.atLeast("readers", -1, 0)));
    assertEquals("workers must be >= 1, got 0", failure(() -> Check.atLeast("workers", 0, 1)));
    assertEquals("rows must be >= 5000000000, got 4999999999",
        failure(() -> Check.atLeast("rows", 4_999_999_999L, 5_000_000_000L)));
    assertEquals("n must be >= 1, got -2147483648", failure(() -> Check.atLeast("n", Integer.MIN_VALUE, 1)));
  }

  @Test
  void theMeaningOfTheBoundGoesInParenthesesAfterIt() {
    assertEquals("bufferSize must be >= 0 (0 = unbounded), got -3",
        failure(() -> Check.atLeast("bufferSize", -3, 0, "0 = unbounded")));
    assertEquals(0, Check.atLeast("bufferSize", 0, 0, "0 = unbounded"));
    assertEquals("size must be >= 2 (two halves), got 1", failure(() -> Check.atLeast("size", 1L, 2L, "two halves")));
  }

  @Test
  void inRangeIncludesItsStartAndExcludesItsEnd() {
    assertEquals(0, Check.inRange("partIndex", 0, 0, 4));
    assertEquals(3, Check.inRange("partIndex", 3, 0, 4));
    assertEquals(-2L, Check.inRange("offset", -2L, -2L, 0L));
    assertEquals("partIndex must be in [0, 4), got 4", failure(() -> Check.inRange("partIndex", 4, 0, 4)));
    assertEquals("partIndex must be in [0, 4), got -1", failure(() -> Check.inRange("partIndex", -1, 0, 4)));
    assertEquals("partIndex must be in [0, 0), got 0", failure(() -> Check.inRange("partIndex", 0, 0, 0)));
    assertEquals("offset must be in [-2, 0), got 0", failure(() -> Check.inRange("offset", 0L, -2L, 0L)));
  }

  @Test
  void aPositiveNumberIsFiniteAndAboveZero() {
    assertEquals(0.25, Check.positive("weight", 0.25));
    assertEquals(Double.MIN_VALUE, Check.positive("weight", Double.MIN_VALUE));
    assertEquals(Double.MAX_VALUE, Check.positive("weight", Double.MAX_VALUE));
    assertEquals("weight must be a finite number > 0, got 0.0", failure(() -> Check.positive("weight", 0)));
    assertEquals("weight must be a finite number > 0, got -0.5", failure(() -> Check.positive("weight", -0.5)));
    assertEquals("weight must be a finite number > 0, got NaN", failure(() -> Check.positive("weight", Double.NaN)));
    assertEquals("weight must be a finite number > 0, got Infinity",
        failure(() -> Check.positive("weight", Double.POSITIVE_INFINITY)));
  }

  @Test
  void aNonNegativeNumberIsFiniteAndAtLeastZero() {
    assertEquals(0.0, Check.nonNegative("p", 0));
    assertEquals(3.5, Check.nonNegative("p", 3.5));
    assertEquals("p must be a finite number >= 0, got -1.0E-9", failure(() -> Check.nonNegative("p", -1e-9)));
    assertEquals("p must be a finite number >= 0, got NaN", failure(() -> Check.nonNegative("p", Double.NaN)));
    assertEquals("p must be a finite number >= 0, got Infinity",
        failure(() -> Check.nonNegative("p", Double.POSITIVE_INFINITY)));
  }

  @Test
  void aFractionIsInTheClosedUnitInterval() {
    assertEquals(0.0, Check.fraction("share", 0));
    assertEquals(1.0, Check.fraction("share", 1));
    assertEquals(0.5, Check.fraction("share", 0.5));
    assertEquals("share must be in [0, 1], got 1.0000001", failure(() -> Check.fraction("share", 1.0000001)));
    assertEquals("share must be in [0, 1], got -0.1", failure(() -> Check.fraction("share", -0.1)));
    assertEquals("share must be in [0, 1], got NaN", failure(() -> Check.fraction("share", Double.NaN)));
  }
}
