package dev.minibatch.shape;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ShapeTest {
  @Test
  void valueSemanticsAndFormatting() {
    assertEquals(Shape.of(28, 28), Shape.of(28L, 28L));
    assertEquals(Shape.of(28, 28).hashCode(), Shape.of(28L, 28L).hashCode());
    assertNotEquals(Shape.of(28, 28), Shape.of(784));
    assertEquals("(28, 28)", Shape.of(28, 28).toString());
    assertEquals("(784,)", Shape.of(784).toString());
    assertEquals("()", Shape.scalar().toString());
    assertEquals(1, Shape.scalar().elementCount());
    assertEquals(3 * 32 * 32, Shape.of(3, 32, 32).elementCount());
  }

  @Test
  void batchAxisIsPrependedAndDropped() {
    Shape s = Shape.of(1, 28, 28).withBatch(64);
    assertArrayEquals(new long[] {64, 1, 28, 28}, s.toLongArray());
    assertEquals(Shape.of(1, 28, 28), s.dropFirst());
    assertEquals(Shape.scalar(), Shape.scalar().withBatch(5).dropFirst());
  }

  @Test
  void theOneCheckerNamesTheBadAxis() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Shape.of(3, 0, 2));
    assertEquals("shape (3, 0, 2): dim 1 is 0, every dim must be > 0 (or VARIABLE, -1, for the one axis whose length "
        + "varies)", e.getMessage());
    assertEquals(e.getMessage(), ShapeCheck.checkDims(new int[] {3, 0, 2}));
    assertNull(ShapeCheck.checkDims(new int[] {3, 1}));
    assertNull(ShapeCheck.checkArrayRank(1, 3));
    assertNull(ShapeCheck.checkArrayRank(2, 2));
    assertEquals("a rank-2 array cannot hold shape of rank 3; use a rank-3 array, or a flat rank-1 array holding the elements row-major",
        ShapeCheck.checkArrayRank(2, 3));
    assertEquals("field 'image' of sample 17: expected shape (28, 28) (784 elements), got (783,)",
        ShapeCheck.sampleMismatch("image", 17, Shape.of(28, 28), new long[] {783}));
  }

  @Test
  void oneVariableAxisMatchesAnyLengthThere() {
    Shape s = Shape.of(Shape.VARIABLE, 64);
    assertEquals(0, s.variableAxis());
    assertEquals(false, s.isFixed());
    assertEquals(true, s.matches(new long[] {7, 64}));
    assertEquals(true, s.matches(new long[] {1, 64}));
    assertEquals(false, s.matches(new long[] {7, 63}));
    assertEquals(false, s.matches(new long[] {7}));
    assertEquals(Shape.of(20, 64), s.withDim(0, 20));
    assertEquals("(-1, 64)", s.toString());
    assertThrows(IllegalStateException.class, s::elementCount);
    assertEquals(-1, Shape.of(3, 4).variableAxis());
    IllegalArgumentException two = assertThrows(IllegalArgumentException.class,
        () -> Shape.of(Shape.VARIABLE, Shape.VARIABLE));
    assertEquals("shape (-1, -1): dims 0 and 1 are both VARIABLE; a sample has one mask and one length, so at most one "
        + "axis can vary", two.getMessage());
    assertEquals("field 'tokens' of sample 3: expected shape (-1, 64), got (5, 63)",
        ShapeCheck.sampleMismatch("tokens", 3, s, new long[] {5, 63}));
  }

  @Test
  void aVariableAxisIsASequenceInTheDefaultLayout() {
    assertEquals("NT", dev.minibatch.DataDesc.defaultLayout(Shape.of(Shape.VARIABLE).withBatch(2)));
    assertEquals("NTC", dev.minibatch.DataDesc.defaultLayout(Shape.of(Shape.VARIABLE, 3).withBatch(2)));
    assertEquals("NCT", dev.minibatch.DataDesc.defaultLayout(Shape.of(3, Shape.VARIABLE).withBatch(2)));
    assertEquals("N_T_", dev.minibatch.DataDesc.defaultLayout(Shape.of(3, Shape.VARIABLE, 3).withBatch(2)));
  }
}
