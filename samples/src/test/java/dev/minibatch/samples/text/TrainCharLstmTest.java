package dev.minibatch.samples.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.interop.SameDiffBinding;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The char-LSTM trains on the LICENSE's variable-length lines: its loss falls. */
class TrainCharLstmTest {
  @Test
  void theLicenseHasItsKnownLines() {
    String text = CharLines.license();
    // The Apache License 2.0 as shipped: 201 lines, of which 169 keep at least two characters once stripped
    // (awk '{ s=$0; gsub(/^[ \t]+|[ \t\r]+$/, "", s); if (length(s) >= 2) n++ } END { print n }' LICENSE).
    assertEquals(201, text.split("\n", -1).length - 1);
    Vocabulary v = Vocabulary.of(text);
    List<CharLine> lines = CharLines.lines(text, v);
    assertEquals(169, lines.size());
    assertEquals("Apache License", v.decode(lines.get(0).chars()) + v.decode(new int[] {lines.get(0).next()[12]}));
  }

  @Test
  void theLossFallsOnVariableLengthLines() {
    String text = CharLines.license();
    Vocabulary v = Vocabulary.of(text);
    List<CharLine> lines = CharLines.lines(text, v);
    TrainCharLstm.Options o = new TrainCharLstm.Options(6, 8, 64, 7, new int[] {16, 32, 48, 64, 80, 96});
    List<TrainCharLstm.EpochReport> r = TrainCharLstm.train(lines, v.size(), o, x -> { });
    double uniform = Math.log(v.size());
    // An untrained model is near the uniform guess; six epochs take it well below.
    assertTrue(r.get(0).loss() < uniform, r.toString());
    assertTrue(r.get(5).loss() < 0.8 * r.get(0).loss(), r.toString());
    assertTrue(r.get(5).loss() < 0.7 * uniform, r.toString());
  }

  @Test
  void theGraphBindsWithVariableTimeAxes() {
    String text = CharLines.license();
    Vocabulary v = Vocabulary.of(text);
    try (CharLineProvider p = TrainCharLstm.provider(CharLines.lines(text, v), TrainCharLstm.Options.defaults())) {
      SameDiffBinding.check(p, CharLstm.build(v.size(), 8));
      var fixed = org.nd4j.autodiff.samediff.SameDiff.create();
      fixed.placeHolder("chars", org.nd4j.linalg.api.buffer.DataType.INT32, -1, 20);
      fixed.placeHolder("next", org.nd4j.linalg.api.buffer.DataType.INT32, -1, -1);
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> SameDiffBinding.check(p, fixed));
      assertTrue(e.getMessage().contains("'chars': provided shape [16, -1] (batch axis first), placeholder shape [-1, 20]; "
          + "axis 1 varies from batch to batch, so the placeholder needs -1 there"), e.getMessage());
    }
  }
}
