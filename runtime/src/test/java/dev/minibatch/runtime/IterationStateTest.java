package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class IterationStateTest {
  @Test
  void encodesToOneLineAndBack() {
    IterationState s = new IterationState(-42, 3, 7, new int[] {9, 0}, "samples=10,batch=3");
    String text = s.encode();
    assertEquals("minibatch-state/1;seed=-42;epoch=3;position=7;carried=9,0;settings=samples=10,batch=3", text);
    IterationState back = IterationState.decode(text);
    assertEquals(s, back);
    assertArrayEquals(new int[] {9, 0}, back.carried());
    assertEquals(new IterationState(1, 0, 0, new int[0], "x"), IterationState.decode(new IterationState(1, 0, 0, new int[0], "x").encode()));
  }

  /** A composed state (a wrapper's) is version 2: its six fields, the count of parts, then each part's own text. */
  @Test
  void aComposedStateEncodesItsPartsAfterItsOwnFields() {
    IterationState inner = new IterationState(7, 1, 2, new int[] {9}, "samples=10,batch=3");
    IterationState merged = new IterationState(0, 4, 1, new int[0], "merged(2)",
        List.of(inner, new IterationState(8, 0, 0, new int[0], "stream")));
    IterationState outer = new IterationState(0, 5, 0, new int[0], "resized(3)", List.of(merged));
    String text = outer.encode();
    assertEquals("minibatch-state/2;seed=0;epoch=5;position=0;carried=;settings=resized(3);parts=1;"
        + "minibatch-state/2;seed=0;epoch=4;position=1;carried=;settings=merged(2);parts=2;"
        + "minibatch-state/1;seed=7;epoch=1;position=2;carried=9;settings=samples=10,batch=3;"
        + "minibatch-state/1;seed=8;epoch=0;position=0;carried=;settings=stream", text);
    IterationState back = IterationState.decode(text);
    assertEquals(outer, back);
    assertEquals(List.of(inner, new IterationState(8, 0, 0, new int[0], "stream")), back.parts().get(0).parts());
    assertEquals(List.of(), back.parts().get(0).parts().get(0).parts());
    // Parts take part in equality: the same own fields with another part differ.
    assertEquals(false, outer.equals(new IterationState(0, 5, 0, new int[0], "resized(3)", List.of(inner))));
  }

  @Test
  void aComposedStateWithMissingOrExtraPartsIsRejected() {
    String one = "minibatch-state/1;seed=7;epoch=1;position=2;carried=;settings=x";
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/2;seed=0;epoch=0;position=0;carried=;settings=m;parts=2;" + one));
    assertEquals("iteration state: a part ends early: expected 'minibatch-state/1;seed=…;epoch=…;position=…;carried=…;"
        + "settings=…', found ''", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/2;seed=0;epoch=0;position=0;carried=;settings=m"));
    assertEquals("iteration state: a minibatch-state/2 state needs 'parts=…' after its settings", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/2;seed=0;epoch=0;position=0;carried=;settings=m;parts=0"));
    assertEquals("iteration state: parts must be in [1, 2147483647], found 0", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> IterationState.decode(one + ";parts=1"));
    assertEquals("iteration state: unexpected text after the state: 'parts=1'", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/2;seed=0;epoch=0;position=0;carried=;settings=m;parts=1;"
            + "minibatch-state/3;seed=7;epoch=1;position=2;carried=;settings=x"));
    assertEquals("iteration state: expected 'minibatch-state/1' or 'minibatch-state/2' to start a part, found "
        + "'minibatch-state/3'", e.getMessage());
  }

  @Test
  void malformedTextIsRejectedWithWhatWasExpected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IterationState.decode("hello"));
    assertEquals("not a minibatch iteration state (expected 'minibatch-state/1;seed=…;epoch=…;position=…;carried=…;settings=…'): hello",
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/1;seed=1;epok=2;position=0;carried=;settings=x"));
    assertEquals("iteration state: expected 'epoch=…', found 'epok=2'", e.getMessage());
  }

  /** Issue 10, defect 6: a non-numeric seed escaped as NumberFormatException; bad epochs and positions were accepted. */
  @Test
  void numbersOutOfFormOrRangeNameTheFieldAndTheRange() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/1;seed=abc;epoch=2;position=0;carried=;settings=x"));
    assertEquals("iteration state: seed must be an integer in [-9223372036854775808, 9223372036854775807], found 'abc'",
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/1;seed=1;epoch=2147483647;position=0;carried=;settings=x"));
    assertEquals("iteration state: epoch must be in [0, 2147483646], found 2147483647", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/1;seed=1;epoch=0;position=-3;carried=;settings=x"));
    assertEquals("iteration state: position must be in [0, 2147483647], found -3", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/1;seed=1;epoch=0;position=0;carried=4,x;settings=x"));
    assertEquals("iteration state: carried[1] must be an integer in [0, 2147483647], found 'x'", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new IterationState(1, Integer.MAX_VALUE, 0, new int[0], "x"));
    assertEquals("iteration state: epoch must be in [0, 2147483646], found 2147483647", e.getMessage());
  }

  /** Issue 41, found by IterationStateFuzzTest: a line break in the settings escaped the constructor's message. */
  @Test
  void aLineBreakInTheSettingsIsAnIterationStateError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/1;seed=1;epoch=0;position=0;carried=;settings=a\nb"));
    assertEquals("iteration state: settings must be on the state's one line, found a line break in 'a\nb'",
        e.getMessage());
  }

  /** Parts nest as deep as providers wrap providers; a line nested deeper is refused before the stack runs out. */
  @Test
  void partsNestedBeyondTheBoundAreRefused() {
    String level = "minibatch-state/2;seed=0;epoch=0;position=0;carried=;settings=w;parts=1;";
    String leaf = "minibatch-state/1;seed=0;epoch=0;position=0;carried=;settings=x";
    // 64 wrappers around the leaf: the leaf is at depth 64, the deepest allowed.
    IterationState s = IterationState.decode(level.repeat(64) + leaf);
    for (int i = 0; i < 64; i++) {
      s = s.parts().get(0);
    }
    assertEquals(new IterationState(0, 0, 0, new int[0], "x"), s);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode(level.repeat(65) + leaf));
    assertEquals("iteration state: parts nested more than 64 levels deep", e.getMessage());
    // Far deeper than any stack: still the same error, not a StackOverflowError.
    e = assertThrows(IllegalArgumentException.class, () -> IterationState.decode(level.repeat(100_000) + leaf));
    assertEquals("iteration state: parts nested more than 64 levels deep", e.getMessage());
  }

  @Test
  void aPositionBeyondTheEpochIsRejectedNamingTheRange() {
    try (dev.minibatch.runtime.array.ArrayDataProvider p = dev.minibatch.runtime.array.ArrayDataProvider.builder()
        .data(org.nd4j.linalg.factory.Nd4j.arange(10).reshape(10, 1)).batchSize(3).build()) {
      IterationState s = p.saveState();
      IterationState beyond = new IterationState(s.seed(), 0, 5, new int[0], s.settings());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.restoreState(beyond));
      assertEquals("iteration state: position 5 is out of range; epoch 0 has 4 batches, so the position must be in [0, 4]",
          e.getMessage());
      // A valid state still restores, and the resumed epoch holds the rest.
      p.restoreState(new IterationState(s.seed(), 0, 3, new int[0], s.settings()));
      dev.minibatch.runtime.BatchIterator<dev.minibatch.runtime.NamedBatch> it = p.iterator();
      assertArrayEquals(new long[] {9}, it.next().sampleIndices());
      assertEquals(false, it.hasNext());
    }
  }
}
