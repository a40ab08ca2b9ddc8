package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Bucket bounds, given or chosen from the data, with hand-computed expectations. */
class BucketsTest {
  // Sorted: 1 2 3 4 5 7 8 9 12 15 (n = 10).
  static final int[] LENGTHS = {3, 9, 4, 12, 7, 2, 15, 8, 5, 1};

  @Test
  void aSampleGoesToTheSmallestBoundAtLeastItsLength() {
    // 3->4, 9->16, 4->4 (equal to the bound), 12->16, 7->8, 2->4, 15->16, 8->8 (equal), 5->8, 1->4.
    assertArrayEquals(new int[] {0, 2, 0, 2, 1, 0, 2, 1, 1, 0}, Buckets.assign(new int[] {4, 8, 16}, LENGTHS));
    // Length 0 goes to the first bucket.
    assertArrayEquals(new int[] {0, 1}, Buckets.assign(new int[] {1, 2}, new int[] {0, 2}));
  }

  @Test
  void givenBoundsResolveToThemselvesWhenEverySampleFits() {
    Buckets b = Buckets.of(4, 8, 16);
    int[] resolved = b.resolve(LENGTHS);
    assertArrayEquals(new int[] {4, 8, 16}, resolved);
    resolved[0] = 99;
    assertArrayEquals(new int[] {4, 8, 16}, b.resolve(LENGTHS), "resolve returns a fresh array");
    // A bound no sample reaches stays: keys do not depend on the data.
    assertArrayEquals(new int[] {4, 8, 16, 64}, Buckets.of(4, 8, 16, 64).resolve(LENGTHS));
  }

  @Test
  void aSampleLongerThanTheLargestBoundIsAnErrorNamingIt() {
    int[] lengths = LENGTHS.clone();
    lengths[3] = 17;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Buckets.of(4, 8, 16)
        .resolve(lengths));
    assertEquals("sample 3 has length 17, longer than the largest bucket bound 16: add a larger bound, or set a "
        + "maxLength that truncates or rejects long samples", e.getMessage());
  }

  @Test
  void badBoundsAreRejectedWithTheReason() {
    assertEquals("at least one bucket bound is needed",
        assertThrows(IllegalArgumentException.class, Buckets::of).getMessage());
    assertEquals("bucket bounds must strictly increase, but bound 2 (8) is not above bound 1 (8): [4, 8, 8]",
        assertThrows(IllegalArgumentException.class, () -> Buckets.of(4, 8, 8)).getMessage());
    assertEquals("bucket bounds must strictly increase, but bound 1 (4) is not above bound 0 (8): [8, 4]",
        assertThrows(IllegalArgumentException.class, () -> Buckets.of(8, 4)).getMessage());
    assertEquals("bucket bound 0 of [0, 4] must be >= 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> Buckets.of(0, 4)).getMessage());
    assertEquals("bucket count must be >= 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> Buckets.byCount(0)).getMessage());
    assertEquals("the length of sample 1 must be >= 0, got -2", assertThrows(IllegalArgumentException.class,
        () -> Buckets.byCount(2).resolve(new int[] {1, -2})).getMessage());
    assertThrows(IllegalArgumentException.class, () -> Buckets.byCount(2).resolve(new int[0]));
    // The bounds are copied: changing the caller's array afterwards changes nothing.
    int[] bounds = {4, 8};
    Buckets b = Buckets.of(bounds);
    bounds[1] = 2;
    assertArrayEquals(new int[] {4, 8}, b.resolve(new int[] {8}));
  }

  @Test
  void byCountTakesEqualFrequencyQuantiles() {
    // c = 3: ranks ceil(10/3) = 4, ceil(20/3) = 7, 10 -> sorted[3] = 4, sorted[6] = 8, sorted[9] = 15.
    assertArrayEquals(new int[] {4, 8, 15}, Buckets.byCount(3).resolve(LENGTHS));
    // c = 4: ranks 3, 5, 8, 10 -> 3, 5, 9, 15.
    assertArrayEquals(new int[] {3, 5, 9, 15}, Buckets.byCount(4).resolve(LENGTHS));
    // c = 1: the longest length.
    assertArrayEquals(new int[] {15}, Buckets.byCount(1).resolve(LENGTHS));
    // More buckets than samples: every distinct length is a bound.
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 7, 8, 9, 12, 15}, Buckets.byCount(20).resolve(LENGTHS));
  }

  @Test
  void byCountDropsRepeatedBoundsAndNeverGoesBelowOne() {
    // Ranks 2, 4, 6, 8 of 1 1 1 1 2 3 4 5 -> 1, 1, 3, 5 -> bounds [1, 3, 5].
    assertArrayEquals(new int[] {1, 3, 5}, Buckets.byCount(4).resolve(new int[] {5, 1, 4, 1, 3, 1, 2, 1}));
    // Ranks 2, 4 of 0 0 0 5 -> 0 (raised to 1), 5.
    assertArrayEquals(new int[] {1, 5}, Buckets.byCount(2).resolve(new int[] {0, 5, 0, 0}));
    // Every sample fits its resolved bounds, by construction.
    int[] bounds = Buckets.byCount(3).resolve(LENGTHS);
    assertEquals(LENGTHS.length, Buckets.assign(bounds, LENGTHS).length);
  }

  @Test
  void valueSemantics() {
    assertEquals(Buckets.of(4, 8), Buckets.of(4, 8));
    assertEquals(Buckets.of(4, 8).hashCode(), Buckets.of(4, 8).hashCode());
    assertNotEquals(Buckets.of(4, 8), Buckets.of(4, 9));
    assertNotEquals(Buckets.byCount(2), Buckets.of(4, 8));
    assertEquals(Buckets.byCount(3), Buckets.byCount(3));
    assertEquals("Buckets.of(4, 8, 16)", Buckets.of(4, 8, 16).toString());
    assertEquals("Buckets.byCount(3)", Buckets.byCount(3).toString());
    assertTrue(Buckets.byCount(3).fromData());
    assertEquals(3, Buckets.byCount(3).count());
    assertEquals(2, Buckets.of(4, 8).count());
  }
}
