package dev.minibatch;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes {@link SampleSchema#parse}, the reader of the text manifests, shard indexes and shard
 * files hold: every input is either refused with an {@code IllegalArgumentException} whose message
 * names the line ({@code "line N, column C: expected ..."}), or read into a schema whose text is
 * the input itself (one text form: nothing else parses) and which reads back equal. Any other
 * throwable is a finding. Seeds under {@code SampleSchemaFuzzTestInputs/parse}: a fixed-shape
 * schema and one with variable axes and a bound. Without {@code JAZZER_FUZZ} this replays the
 * seeds and every committed finding; see docs/bad-input.md to fuzz.
 */
class SampleSchemaFuzzTest {
  @FuzzTest(maxDuration = "5m")
  void parse(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    SampleSchema s;
    try {
      s = SampleSchema.parse(text);
    } catch (IllegalArgumentException e) {
      if (e.getMessage() == null || !e.getMessage().matches("(?s)line [0-9]+, column [0-9]+: expected .*")) {
        throw new AssertionError("the error does not name the line and column: " + e.getMessage(), e);
      }
      return;
    }
    if (!s.toString().equals(text)) {
      throw new AssertionError("read '" + text + "' but writes '" + s + "'");
    }
    if (!SampleSchema.parse(s.toString()).equals(s)) {
      throw new AssertionError("'" + s + "' does not read back equal");
    }
    for (SampleSchema.Field f : s.fields()) {
      f.toDataDesc(32);
    }
  }
}
