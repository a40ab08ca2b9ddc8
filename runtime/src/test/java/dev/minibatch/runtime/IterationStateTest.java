package dev.minibatch.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

  @Test
  void malformedTextIsRejectedWithWhatWasExpected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IterationState.decode("hello"));
    assertEquals("not a minibatch iteration state (expected 'minibatch-state/1;seed=…;epoch=…;position=…;carried=…;settings=…'): hello",
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> IterationState.decode("minibatch-state/1;seed=1;epok=2;position=0;carried=;settings=x"));
    assertEquals("iteration state: expected 'epoch=…', found 'epok=2'", e.getMessage());
  }
}
