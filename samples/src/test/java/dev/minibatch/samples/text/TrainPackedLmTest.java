package dev.minibatch.samples.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.text.Tokenizer;
import dev.minibatch.text.Tokenizers;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packed language model trains on the three sonnets: its loss falls from about the uniform
 * guess over the corpus's ids to well under the corpus's unigram entropy (what a model that knows
 * only how often each token comes next can reach), both computed here from the text itself.
 */
class TrainPackedLmTest {
  @TempDir Path dir;

  /**
   * What the model predicts, counted from the text: for each line, its tokens after the first, then
   * the separator; an empty line (its separator alone) has nothing to predict.
   */
  static Map<Integer, Integer> targets(String text, Tokenizer tokenizer) {
    Map<Integer, Integer> counts = new HashMap<>();
    for (String line : text.lines().toList()) {
      int[] ids = tokenizer.encode(line);
      for (int i = 1; i < ids.length; i++) {
        counts.merge(ids[i], 1, Integer::sum);
      }
      if (ids.length > 0) {
        counts.merge(TrainPackedLm.SEPARATOR, 1, Integer::sum);
      }
    }
    return counts;
  }

  static double entropy(Map<Integer, Integer> counts) {
    double n = counts.values().stream().mapToInt(Integer::intValue).sum();
    double h = 0;
    for (int c : counts.values()) {
      h -= c / n * Math.log(c / n);
    }
    return h;
  }

  @Test
  void theLossFallsWellUnderTheUnigramEntropy() throws IOException {
    String text = TrainPackedLm.corpus();
    assertEquals(44, text.lines().count(), "44 lines");
    Tokenizer cl100k = Tokenizers.cl100k();
    Map<Integer, Integer> targets = targets(text, cl100k);
    double unigram = entropy(targets);
    String set = TrainPackedLm.tokenize(dir);
    CompactIds ids = TrainPackedLm.ids(set);
    double uniform = Math.log(ids.size());
    TrainPackedLm.Options o = TrainPackedLm.Options.defaults();
    List<TrainPackedLm.EpochReport> r = TrainPackedLm.train(set, o, x -> { });
    assertEquals(o.epochs() + 1, r.size());
    // Untrained, the model is about the uniform guess over the ids, which is above the unigram entropy;
    // trained, it is far below that entropy: it predicts from the context, which frequencies alone cannot.
    assertTrue(uniform > unigram, uniform + " " + unigram);
    assertTrue(r.get(0).loss() > unigram, r.get(0).toString());
    double last = r.get(r.size() - 1).loss();
    assertTrue(last < 0.5 * unigram, r.toString());
    // Every epoch packs the corpus: all its tokens, each line with its separator.
    long tokens = 0;
    for (String line : text.lines().toList()) {
      tokens += cl100k.encode(line).length + 1;
    }
    for (TrainPackedLm.EpochReport e : r.subList(1, r.size())) {
      assertEquals(tokens, e.realTokens(), e.toString());
      assertTrue(e.positions() >= e.realTokens() && e.positions() % o.length() == 0, e.toString());
    }
  }

  @Test
  void theLossCountsEveryNextTokenOnceAndNoPadding() throws IOException {
    String text = TrainPackedLm.corpus();
    Map<Integer, Integer> expected = targets(text, Tokenizers.cl100k());
    String set = TrainPackedLm.tokenize(dir);
    CompactIds ids = TrainPackedLm.ids(set);
    TrainPackedLm.Options o = TrainPackedLm.Options.defaults();
    Map<Integer, Integer> counted = new HashMap<>();
    long padding = 0;
    for (MultiDataSet d : TrainPackedLm.everyRow(set, TrainPackedLm.packing(o), o, ids)) {
      int[][] next = d.getLabels()[0].toIntMatrix();
      float[][] weight = d.getLabels()[1].toFloatMatrix();
      int[][] tokens = d.getFeatures()[0].toIntMatrix();
      for (int r = 0; r < next.length; r++) {
        for (int i = 0; i < next[r].length; i++) {
          assertTrue(weight[r][i] == 0f || weight[r][i] == 1f);
          if (weight[r][i] == 1f) {
            // Back from the compact numbering: the id whose compact number it is.
            int id = -1;
            for (int candidate : expected.keySet()) {
              if (ids.compact(candidate) == next[r][i]) {
                id = candidate;
              }
            }
            counted.merge(id, 1, Integer::sum);
          } else if (tokens[r][i] == 0 && next[r][i] == 0) {
            padding++;
          }
        }
      }
    }
    // The weighted positions are exactly the next tokens the text has, each once: no padding, no
    // position after a line's separator.
    assertEquals(expected, counted);
    // 479 real tokens (the lines' ids and 44 separators), less each line's last, which has no next.
    assertEquals(479 - 44, counted.values().stream().mapToInt(Integer::intValue).sum());
    assertTrue(padding > 0, "the rows have padding, weighted 0");
  }

  @Test
  void attentionStaysInsideItsSegmentAndLooksBack() {
    // Segments 1 1 2 0: positions 0-1 are one document, 2 another, 3 padding.
    float b = PackedLm.BLOCKED;
    float[][][] bias = PackedLm.attention(new int[][] {{1, 1, 2, 0}});
    assertArrayEquals(new float[] {0, b, b, b}, bias[0][0]);
    assertArrayEquals(new float[] {0, 0, b, b}, bias[0][1]);
    assertArrayEquals(new float[] {b, b, 0, b}, bias[0][2]);
    assertArrayEquals(new float[] {b, b, b, 0}, bias[0][3]);
  }
}
