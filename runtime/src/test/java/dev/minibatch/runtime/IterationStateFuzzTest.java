package dev.minibatch.runtime;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.runtime.io.FuzzChecks;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes {@link IterationState#decode}, the reader of the state line a checkpoint keeps: every
 * input ends in a state or an {@code IllegalArgumentException} whose message says it is about the
 * iteration state ("iteration state: …", "not a minibatch iteration state …"); any other throwable
 * is a finding. A state it accepts must survive {@code encode} and {@code decode} unchanged (a
 * checkpoint written from it resumes the same state). Seeds: states the library encodes (version 1
 * with and without carried samples, version 2 with nested parts), under {@code
 * IterationStateFuzzTestInputs/decode}. Without {@code JAZZER_FUZZ} this replays the seeds and every
 * committed finding; see docs/bad-input.md to fuzz.
 */
class IterationStateFuzzTest {
  @FuzzTest(maxDuration = "5m")
  void decode(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    // "iteration state" and "not a minibatch iteration state" share no prefix: judged below.
    FuzzChecks.checkText("", input.length, () -> {
      IterationState s;
      try {
        s = IterationState.decode(text);
      } catch (IllegalArgumentException e) {
        String m = String.valueOf(e.getMessage());
        if (!m.startsWith("iteration state: ") && !m.startsWith("not a minibatch iteration state")) {
          throw new AssertionError("the error does not say it is about the iteration state: " + m, e);
        }
        return;
      }
      String line = s.encode();
      IterationState back = IterationState.decode(line);
      if (!back.equals(s) || !back.encode().equals(line)) {
        throw new AssertionError("decoded " + s + " but its own line reads back as " + back);
      }
    });
  }
}
