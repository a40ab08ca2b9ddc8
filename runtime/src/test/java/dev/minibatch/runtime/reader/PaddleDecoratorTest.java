package dev.minibatch.runtime.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Readers.ComposeNotAlignedException;
import dev.minibatch.runtime.reader.Readers.Tuple;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ports of PaddlePaddle's documented reader decorator tests
 * (python/paddle/reader/tests/decorator_test.py), one test per Paddle case, same inputs and
 * expected answers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PaddleDecoratorTest {

  /** Paddle's {@code reader_creator_10(0)}: 0..9. */
  static Reader<Integer> reader10() {
    return Readers.range(0, 10);
  }

  static List<Integer> upTo(int n) {
    return IntStream.range(0, n).boxed().collect(Collectors.toList());
  }

  @Test
  void mapOverDictLookup() {
    Map<String, Integer> d = Map.of("h", 0, "i", 1);
    Reader<Integer> r = Readers.mapReaders(List.of(Readers.of("h", "i")), row -> d.get(row.<String>get(0)));
    assertEquals(List.of(0, 1), r.toList());
    // The same through the one-reader decorator.
    assertEquals(List.of(0, 1), Readers.of("h", "i").map(d::get).toList());
  }

  @Test
  void mapReadersZipsAndStopsAtTheShortest() {
    Reader<Integer> sum = Readers.mapReaders(Readers.range(0, 10), Readers.range(100, 105), Integer::sum);
    assertEquals(List.of(100, 102, 104, 106, 108), sum.toList());
  }

  @Test
  void bufferedWithSizes0To19YieldsTheItemsInOrder() {
    for (int size = 0; size < 20; size++) {
      assertEquals(upTo(10), reader10().buffered(size).toList(), "buffer size " + size);
    }
  }

  @Test
  void bufferedKeepsFillingWhileTheConsumerIsSlow() throws InterruptedException {
    int size = 5;
    AtomicInteger pulled = new AtomicInteger();
    Object monitor = new Object();
    Reader<Integer> counted = Readers.range(0, 100).map(i -> {
      synchronized (monitor) {
        pulled.incrementAndGet();
        monitor.notifyAll();
      }
      return i;
    });
    try (PipelineIterator<Integer> it = counted.buffered(size).iterator()) {
      assertEquals(0, it.next());
      // The consumer does nothing now; the producer must fill the buffer on its own.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      synchronized (monitor) {
        while (pulled.get() < 1 + size && System.nanoTime() < deadline) {
          monitor.wait(1000);
        }
      }
      assertTrue(pulled.get() >= 1 + size, "producer read " + pulled.get() + " items while the consumer held 1");
      for (int i = 1; i < 100; i++) {
        assertEquals(i, it.next());
      }
    }
  }

  @Test
  void bufferedHoldsAtMostItsSizePlusOneChunk() throws InterruptedException {
    int size = 8;
    AtomicInteger pulled = new AtomicInteger();
    Reader<Integer> counted = Readers.range(0, 10_000).map(i -> {
      pulled.incrementAndGet();
      return i;
    });
    try (PipelineIterator<Integer> it = counted.buffered(size).iterator()) {
      assertEquals(0, it.next());
      Thread producer = LiveWorker.named("minibatch-buffered-");
      LiveWorker.awaitBlocked(producer);
      // One item with the consumer, `size` queued, at most one chunk (size/2) gathered plus the
      // item in the producer's hand.
      int bound = 1 + size + size / 2 + 1;
      assertTrue(pulled.get() <= bound, "pulled " + pulled.get() + " > " + bound);
    }
  }

  @Test
  void composeOfAlignedReadersYieldsPairs() {
    List<Tuple> out = Readers.compose(reader10(), reader10()).toList();
    assertEquals(10, out.size());
    for (int i = 0; i < 10; i++) {
      assertEquals(Tuple.of(i, i), out.get(i));
    }
  }

  @Test
  void composeFlattensTuples() {
    Reader<Tuple> pairs = Readers.compose(reader10(), reader10());
    assertEquals(Tuple.of(3, 3, 3), Readers.compose(pairs, reader10()).toList().get(3));
  }

  @Test
  void composeOfUnalignedReadersRaisesAfterTheAlignedItems() {
    Reader<Tuple> r = Readers.compose(Readers.chain(reader10(), reader10()), reader10());
    int[] total = {0};
    assertThrows(ComposeNotAlignedException.class, () -> r.forEach(e -> total[0]++));
    assertEquals(10, total[0]);
  }

  @Test
  void composeWithoutCheckStopsAtTheShortest() {
    Reader<Tuple> r = Readers.compose(false, Readers.chain(reader10(), reader10()), reader10());
    assertEquals(10, r.toList().size());
  }

  @Test
  void chainYieldsOneReaderAfterTheOther() {
    List<Integer> out = Readers.chain(reader10(), reader10()).toList();
    assertEquals(20, out.size());
    for (int i = 0; i < 20; i++) {
      assertEquals(i % 10, out.get(i));
    }
  }

  @Test
  void shuffleWithBuffer0Or1KeepsTheOrder() {
    assertEquals(upTo(10), reader10().shuffle(0, 7).toList());
    assertEquals(upTo(10), reader10().shuffle(1, 7).toList());
  }

  @Test
  void shuffleWithLargerBuffersPermutesWithoutLoss() {
    for (int size : new int[] {10, 100}) {
      List<Integer> out = reader10().shuffle(size, 42).toList();
      assertEquals(10, out.size());
      List<Integer> sorted = new ArrayList<>(out);
      Collections.sort(sorted);
      assertEquals(upTo(10), sorted);
    }
  }

  @Test
  void shuffleIsBlockwise() {
    // Buffer 4 over 0..9: blocks {0..3} {4..7} {8, 9}, each permuted in place.
    List<Integer> out = reader10().shuffle(4, 3).toList();
    assertEquals(Set(0, 1, 2, 3), Set(out.subList(0, 4)));
    assertEquals(Set(4, 5, 6, 7), Set(out.subList(4, 8)));
    assertEquals(Set(8, 9), Set(out.subList(8, 10)));
  }

  @Test
  void shuffleIsAFunctionOfSeedAndPass() {
    Reader<Integer> a = Readers.range(0, 100).shuffle(100, 11);
    Reader<Integer> b = Readers.range(0, 100).shuffle(100, 11);
    List<Integer> a0 = a.toList();
    List<Integer> a1 = a.toList();
    assertEquals(a0, b.toList());
    assertEquals(a1, b.toList());
    assertNotEquals(a0, a1, "a new pass draws a new order");
    assertNotEquals(upTo(100), a0);
  }

  /** One pass read into a list, closing it. */
  private static <T> List<T> read(PipelineIterator<T> pass) {
    List<T> out = new ArrayList<>();
    try (pass) {
      pass.forEachRemaining(out::add);
    }
    return out;
  }

  /**
   * iterator(p) is the p-th pass of a fresh reader (iterator() counts passes from 0), whatever was
   * started before, through every decorator that hands the number on.
   */
  @Test
  void passNumberAddressesAShuffledPassThroughTheDecorators() {
    java.util.function.Supplier<Reader<Integer>> make = () -> Readers.chain(Readers.range(0, 40), Readers.range(40, 60))
        .map(x -> x * 2).filter(x -> x % 3 != 0).shuffle(16, 5).buffered(4).firstn(30).withProgress("t", 30);
    List<List<Integer>> counted = new ArrayList<>();
    Reader<Integer> fresh = Readers.chain(Readers.range(0, 40), Readers.range(40, 60))
        .map(x -> x * 2).filter(x -> x % 3 != 0).shuffle(16, 5).buffered(4).firstn(30);
    for (int p = 0; p < 3; p++) {
      counted.add(read(fresh.iterator()));
    }
    assertNotEquals(counted.get(1), counted.get(2), "passes 1 and 2 draw other orders");
    Reader<Integer> r = make.get();
    assertEquals(counted.get(0), read(r.iterator()));
    // Out of order, twice, and after a counted pass: pass p is always the same.
    assertEquals(counted.get(2), read(r.iterator(2)));
    assertEquals(counted.get(1), read(r.iterator(1)));
    assertEquals(counted.get(2), read(r.iterator(2)));
    Reader<Tuple> composed = Readers.compose(Readers.range(0, 20).shuffle(20, 9), Readers.range(0, 20).shuffle(20, 8));
    Reader<Integer> a = Readers.range(0, 20).shuffle(20, 9);
    Reader<Integer> b = Readers.range(0, 20).shuffle(20, 8);
    a.toList();
    b.toList();
    List<Tuple> expected = new ArrayList<>();
    List<Integer> a1 = a.toList();
    List<Integer> b1 = b.toList();
    for (int i = 0; i < 20; i++) {
      expected.add(Tuple.of(a1.get(i), b1.get(i)));
    }
    assertEquals(expected, read(composed.iterator(1)));
    List<Integer> zipped = read(Readers.mapReaders(Readers.range(0, 20).shuffle(20, 9), Readers.range(0, 20)
        .shuffle(20, 8), (x, y) -> x * 100 + y).iterator(1));
    assertEquals(expected.stream().map(t -> t.<Integer>get(0) * 100 + t.<Integer>get(1)).toList(), zipped);
    List<List<Integer>> batched = read(Readers.range(0, 20).shuffle(20, 9).batch(7).iterator(1));
    assertEquals(List.of(a1.subList(0, 7), a1.subList(7, 14), a1.subList(14, 20)), batched);
  }

  /** xmap's mappers see the pass number as their context's epoch. */
  @Test
  void xmapHandsThePassNumberToItsMappersAsTheEpoch() {
    Reader<Integer> r = reader10().xmap(dev.minibatch.runtime.pipeline.ParallelOptions.of(2, 4, true),
        (x, ctx) -> ctx.epoch() * 100 + x);
    assertEquals(IntStream.range(0, 10).map(x -> 700 + x).boxed().toList(), read(r.iterator(7)));
    assertEquals(IntStream.range(0, 10).boxed().toList(), r.toList(), "iterator() counts from 0");
    assertEquals(IntStream.range(0, 10).map(x -> 300 + x).boxed().toList(), read(r.iterator(3)));
  }

  @Test
  void xmapOrderedAndUnorderedForEveryWorkerAndBufferCount() {
    for (boolean ordered : new boolean[] {true, false}) {
      for (int workers : new int[] {1, 2, 4, 8, 16}) {
        for (int size : new int[] {1, 2, 4, 8, 16}) {
          Reader<Integer> r = reader10().xmap(workers, size, ordered, x -> x + 1);
          for (int pass = 0; pass < 3; pass++) {
            List<Integer> result = r.toList();
            if (!ordered) {
              Collections.sort(result);
            }
            assertEquals(IntStream.rangeClosed(1, 10).boxed().collect(Collectors.toList()), result,
                "ordered=" + ordered + " workers=" + workers + " buffer=" + size + " pass=" + pass);
          }
        }
      }
    }
  }

  @Test
  void firstnStopsPullingAfterN() {
    AtomicInteger pulled = new AtomicInteger();
    Reader<Integer> r = Readers.range(0, 100).map(i -> {
      pulled.incrementAndGet();
      return i;
    });
    assertEquals(List.of(0, 1, 2, 3, 4), r.firstn(5).toList());
    assertEquals(5, pulled.get());
  }

  @Test
  void cacheReplaysWithoutReadingTheSourceAgain() {
    double[][] data = {{0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}, {0.7, 0.8, 0.9}};
    AtomicInteger passes = new AtomicInteger();
    Reader<double[]> source = () -> {
      passes.incrementAndGet();
      return PipelineIterator.of(List.of(data).iterator());
    };
    Reader<double[]> cached = source.cache();
    assertEquals(0, passes.get(), "cache() is lazy");
    for (int i = 0; i < 3; i++) {
      List<double[]> out = cached.toList();
      assertEquals(3, out.size());
      for (int j = 0; j < 3; j++) {
        assertEquals(data[j], out.get(j));
      }
    }
    assertEquals(1, passes.get());
  }

  @Test
  void cacheOfAnAbandonedPassReadsTheSourceAgain() {
    AtomicInteger passes = new AtomicInteger();
    Reader<Integer> source = () -> {
      passes.incrementAndGet();
      return Readers.range(0, 10).iterator();
    };
    Reader<Integer> cached = source.cache();
    try (PipelineIterator<Integer> it = cached.iterator()) {
      it.next();
    }
    assertEquals(upTo(10), cached.toList());
    assertEquals(upTo(10), cached.toList());
    assertEquals(2, passes.get());
  }

  @Test
  void batchGroupsConsecutiveItems() {
    assertEquals(List.of(List.of(0, 1, 2), List.of(3, 4, 5), List.of(6, 7, 8), List.of(9)),
        reader10().batch(3).toList());
    assertEquals(List.of(List.of(0, 1, 2), List.of(3, 4, 5), List.of(6, 7, 8)),
        reader10().batch(3, true).toList());
  }

  @Test
  void badSizesAreRejectedWhenTheDecoratorIsCreated() {
    assertThrows(IllegalArgumentException.class, () -> reader10().batch(0));
    assertEquals("batch size must be >= 1, got -1",
        assertThrows(IllegalArgumentException.class, () -> reader10().batch(-1, true)).getMessage());
    assertEquals("buffer size must be >= 0 (0 = unbounded), got -1",
        assertThrows(IllegalArgumentException.class, () -> reader10().buffered(-1)).getMessage());
    assertEquals("firstn's n must be >= 0, got -1",
        assertThrows(IllegalArgumentException.class, () -> reader10().firstn(-1)).getMessage());
    assertEquals("workers must be >= 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> reader10().xmap(0, 4, true, x -> x)).getMessage());
    assertEquals("bufferSize must be >= 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> reader10().xmap(2, 0, true, x -> x)).getMessage());
  }

  private static java.util.Set<Integer> Set(Integer... xs) {
    return new java.util.HashSet<>(List.of(xs));
  }

  private static java.util.Set<Integer> Set(List<Integer> xs) {
    return new java.util.HashSet<>(xs);
  }
}
