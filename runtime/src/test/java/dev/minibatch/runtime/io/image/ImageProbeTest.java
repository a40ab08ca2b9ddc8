package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;

class ImageProbeTest {
  @Test
  void namesFormatSizeAndChannels() {
    ImageProbe png = ImageProbe.of(ByteBuffer.wrap(TestImages.png(6, 8, 3, (y, x, c) -> x)));
    assertEquals(new ImageProbe("PNG", 6, 8, 3, null), png);
    assertEquals("PNG 8x6x3", png.toString());
    byte[] jpeg;
    try (Mat m = TestImages.mat(5, 7, 1, (y, x, c) -> 100)) {
      jpeg = TestImages.encode(m, ".jpg");
    }
    assertEquals(new ImageProbe("JPEG", 5, 7, 1, null), ImageProbe.of(ByteBuffer.wrap(jpeg)));
  }

  @Test
  void saysWhyBytesCannotBeDecoded() {
    ImageProbe junk = ImageProbe.of(ByteBuffer.wrap(new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0}));
    assertEquals("PNG", junk.format());
    assertTrue(junk.problem().startsWith("OpenCV cannot decode the 6 image bytes"), junk.problem());
    assertEquals("no image bytes", ImageProbe.of(ByteBuffer.allocate(0)).problem());
    assertNull(ImageProbe.of(ByteBuffer.wrap(TestImages.png(1, 1, 1, (y, x, c) -> 0))).problem());
  }
}
