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
  void defaultLayoutsTellImagesFromTablesAndSequencesAreDeclared() {
    // MNIST: a 28x28 grey image is height x width, not a sequence of 28 steps of 28 features.
    assertEquals("NHW", DataDesc.of("image", 64, Shape.of(28, 28), DType.FLOAT32, Role.DATA).layout());
    // CIFAR / ImageRecordIter: channels first, 3 (RGB) or 1 (grey) ...
    assertEquals("NCHW", DataDesc.of("image", 64, Shape.of(3, 32, 32), DType.FLOAT32, Role.DATA).layout());
    assertEquals("NCHW", DataDesc.of("image", 64, Shape.of(1, 28, 28), DType.FLOAT32, Role.DATA).layout());
    // ... or channels last, as decoded images usually come.
    assertEquals("NHWC", DataDesc.of("image", 64, Shape.of(32, 32, 3), DType.FLOAT32, Role.DATA).layout());
    // A table row.
    assertEquals("NC", DataDesc.of("row", 64, Shape.of(4), DType.FLOAT32, Role.DATA).layout());
    // A volume.
    assertEquals("NCDHW", DataDesc.of("v", 2, Shape.of(1, 8, 8, 8), DType.FLOAT32, Role.DATA).layout());
    assertEquals("N_____", DataDesc.of("t", 2, Shape.of(2, 2, 2, 2, 2), DType.FLOAT32, Role.DATA).layout());
    // A sequence is declared: (T, C) has the shape of an image.
    assertEquals("NTC", DataDesc.of("seq", 16, Shape.of(35, 50), DType.FLOAT32, Role.DATA, "NTC").layout());
    assertEquals("NTC", DataDesc.of("seq", 16, Shape.of(35, 50), DType.FLOAT32, Role.DATA, "NTC").withBatchSize(4).layout());
  }

  @Test
  void invalidDescriptionsAreRejected() {
    assertEquals("DataDesc 'x' of shape (8, 3): layout 'NCHW' names 4 axes but a batch of rank-1 samples has 2 "
        + "(the batch axis N, then one per sample axis)",
        assertThrows(IllegalArgumentException.class, () -> DataDesc.builder().name("x").shape(Shape.of(8, 3))
            .dtype(DType.FLOAT32).layout("NCHW").build()).getMessage());
    assertEquals("DataDesc 'x' of shape (8, 3): layout 'TC' must start with N: the batch axis is always first",
        assertThrows(IllegalArgumentException.class, () -> DataDesc.of("x", 8, Shape.of(3), DType.FLOAT32, Role.DATA, "TC"))
            .getMessage());
    assertEquals("DataDesc 'x' of shape (8, 3, 3): layout 'NCC' names axis C twice",
        assertThrows(IllegalArgumentException.class, () -> DataDesc.of("x", 8, Shape.of(3, 3), DType.FLOAT32, Role.DATA, "NCC"))
            .getMessage());
    assertEquals("DataDesc 'x' of shape (8, 3): layout 'Nc' has 'c' at index 1; axes are named by upper-case letters or _",
        assertThrows(IllegalArgumentException.class, () -> DataDesc.of("x", 8, Shape.of(3), DType.FLOAT32, Role.DATA, "Nc"))
            .getMessage());
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
