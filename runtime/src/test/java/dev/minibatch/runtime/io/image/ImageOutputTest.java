package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.DType;
import dev.minibatch.shape.Shape;
import org.junit.jupiter.api.Test;

class ImageOutputTest {
  @Test
  void shapeAndLayoutFollowChannelsLast() {
    ImageOutput nchw = new ImageOutput(3, 224, 200, false, DType.FLOAT32);
    assertEquals(Shape.of(3, 224, 200), nchw.shape());
    assertEquals("NCHW", nchw.layout());
    ImageOutput nhwc = new ImageOutput(1, 28, 30, true, DType.UINT8);
    assertEquals(Shape.of(28, 30, 1), nhwc.shape());
    assertEquals("NHWC", nhwc.layout());
  }

  @Test
  void everyBuilderRefusesTheSameSettingsWithItsName() {
    assertEquals("ImageDecoder: dataShape's channels must be 1, 3 or 4, got 2", assertThrows(
        IllegalArgumentException.class, () -> ImageDecoder.builder().dataShape(2, 8, 8).samples(1).build()).getMessage());
    assertEquals("ImageRecordProvider: dataShape's height and width must be positive, got 0x8", assertThrows(
        IllegalArgumentException.class, () -> ImageRecordProvider.builder().dataShape(3, 0, 8).batchSize(1)
            .imageFolder(java.nio.file.Path.of("absent")).build()).getMessage());
    assertEquals("ImageDecoder: set dataShape(channels, height, width), e.g. dataShape(3, 224, 224)", assertThrows(
        IllegalStateException.class, () -> ImageDecoder.builder().samples(1).build()).getMessage());
    assertEquals("image data is FLOAT32 or UINT8, got INT32", assertThrows(IllegalArgumentException.class,
        () -> ImageDecoder.builder().dtype(DType.INT32)).getMessage());
    assertEquals("image data is FLOAT32 or UINT8, got FLOAT64", assertThrows(IllegalArgumentException.class,
        () -> new ImageOutput(3, 8, 8, false, DType.FLOAT64)).getMessage());
  }
}
