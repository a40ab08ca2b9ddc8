package dev.minibatch.samples.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CharSequencesTest {
  /** 100 characters cycling through the 26 letters: 'a' + i % 26. */
  private static final String TEXT = java.util.stream.IntStream.range(0, 100)
      .mapToObj(i -> String.valueOf((char) ('a' + i % 26))).reduce("", String::concat);

  private static long generatorThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("minibatch-") && !t.getName().equals("minibatch-cleaner")).count();
  }

  @Test
  void windowsAreShiftedByOneAndCutEveryStride() {
    Vocabulary v = Vocabulary.of(TEXT);
    assertEquals(27, v.size()); // 26 letters + unknown
    assertEquals(1, v.id('a'));
    assertEquals(Vocabulary.UNKNOWN, v.id('!'));
    // Starts 0, 16, 32, 48, 64 fit a 32-character window plus its next character in 100 (64 + 32 < 100);
    // in batches of 2 with DISCARD, the fifth window is dropped.
    assertEquals(5, CharSequences.windowCount(100, 16));
    long before = generatorThreads();
    List<String> inputs = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    try (CharWindowProvider p = CharSequences.provider(TEXT, v, 16, 2)) {
      for (CharWindowBatch b : p) {
        assertArrayEquals(new long[] {2, CharWindow.LENGTH}, b.getChars().shape());
        for (int r = 0; r < b.rows(); r++) {
          inputs.add(v.decode(b.getChars().getRow(r).toIntVector()));
          labels.add(v.decode(b.getNext().getRow(r).toIntVector()));
        }
      }
    }
    assertEquals(List.of(TEXT.substring(0, 32), TEXT.substring(16, 48), TEXT.substring(32, 64), TEXT.substring(48, 80)), inputs);
    assertEquals(List.of(TEXT.substring(1, 33), TEXT.substring(17, 49), TEXT.substring(33, 65), TEXT.substring(49, 81)), labels);
    assertEquals(before, generatorThreads(), () -> "the generator thread outlived its epoch: " + Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith("minibatch-") && !n.equals("minibatch-cleaner")).toList());
  }

  @Test
  void closingAnEpochEarlyStopsTheGeneratorAtOnce() {
    String longText = TEXT.repeat(1000);
    Vocabulary v = Vocabulary.of(longText);
    long before = generatorThreads();
    try (CharWindowProvider p = CharSequences.provider(longText, v, 1, 8)) {
      dev.minibatch.runtime.BatchIterator<CharWindowBatch> it = p.iterator();
      it.next();
      it.close(); // 99 900 windows remain unread: the generator is blocked handing them over
      assertEquals(before, generatorThreads(), "closing the epoch left the generator running");
    }
  }

  @Test
  void everyEpochRunsTheGeneratorAgainAndDiscardsTheIncompleteBatch() {
    Vocabulary v = Vocabulary.of(TEXT);
    try (CharWindowProvider p = CharSequences.provider(TEXT, v, 1, 16)) {
      // 68 windows (starts 0..67) in batches of 16: 4 full batches, the last 4 windows dropped.
      assertEquals(68, CharSequences.windowCount(100, 1));
      for (int epoch = 0; epoch < 2; epoch++) {
        int batches = 0;
        int firstId = -1;
        for (CharWindowBatch b : p) {
          if (batches == 0) {
            firstId = b.getChars().getInt(0, 0);
          }
          batches++;
        }
        assertEquals(4, batches);
        assertEquals(v.id('a'), firstId);
      }
    }
  }
}
