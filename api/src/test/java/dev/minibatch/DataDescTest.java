package dev.minibatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.shape.Shape;
import org.junit.jupiter.api.Test;

class DataDescTest {
  @Test
  void defaultsFollowMxnetLayouts() {
    DataDesc d = DataDesc.of("image", 64, Shape.of(1, 28, 28), DType.FLOAT32, Role.DATA);
    assertEquals("NCHW", d.layout());
    assertEquals(64, d.batchSize());
    assertEquals(Shape.of(1, 28, 28), d.sampleShape());
    assertEquals("NC", DataDesc.of("x", 8, Shape.of(784), DType.FLOAT32, Role.DATA).layout());
    assertEquals("N", DataDesc.of("y", 8, Shape.scalar(), DType.INT32, Role.LABEL).layout());
    assertEquals(d.withBatchSize(32).shape(), Shape.of(32, 1, 28, 28));
    assertEquals(d, DataDesc.of("image", 64, Shape.of(1, 28, 28), DType.FLOAT32, Role.DATA));
  }

  @Test
  void invalidDescriptionsAreRejected() {
    assertEquals("DataDesc 'x': layout 'NCHW' names 4 axes but shape (8, 3) has 2",
        assertThrows(IllegalArgumentException.class, () -> DataDesc.builder().name("x").shape(Shape.of(8, 3))
            .dtype(DType.FLOAT32).layout("NCHW").build()).getMessage());
    assertEquals("DataDesc 'x': dtype INFER is not a concrete type",
        assertThrows(IllegalArgumentException.class, () -> DataDesc.builder().name("x").shape(Shape.of(8))
            .dtype(DType.INFER).build()).getMessage());
    assertEquals("DataDesc 'x': the shape must start with the batch axis",
        assertThrows(IllegalArgumentException.class, () -> DataDesc.builder().name("x").shape(Shape.scalar())
            .dtype(DType.FLOAT32).build()).getMessage());
  }

  @Test
  void primitivesMapToTheirNaturalTypes() {
    assertEquals(DType.FLOAT32, DType.ofPrimitive("float"));
    assertEquals(DType.UINT16, DType.ofPrimitive("char"));
    assertEquals(DType.BOOL, DType.ofPrimitive("boolean"));
    assertEquals(8, DType.FLOAT64.byteSize());
    assertThrows(IllegalArgumentException.class, () -> DType.ofPrimitive("String"));
  }
}
