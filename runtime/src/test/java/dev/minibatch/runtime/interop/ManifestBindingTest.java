package dev.minibatch.runtime.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.runtime.internal.ProviderManifest;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;

/** The model-binding check reads a provider's generated manifest, without building the provider. */
class ManifestBindingTest {
  /** What the processor writes for a 28x28 float image and an int label (docs/generated-code.md). */
  private static final String DIGIT = String.join("\n",
      "format=1", "sample=demo.Digit", "provider=demo.DigitProvider", "batch=demo.DigitBatch", "batchSize=0",
      "slots=2",
      "slot.0.name=image", "slot.0.role=DATA", "slot.0.shape=28,28", "slot.0.dtype=FLOAT32", "slot.0.layout=NHW",
      "slot.0.property=image",
      "slot.1.name=softmax_label", "slot.1.role=LABEL", "slot.1.shape=", "slot.1.dtype=INT32", "slot.1.layout=N",
      "slot.1.property=label", "");

  private static ProviderManifest digit() {
    return ProviderManifest.parse("DigitProvider.properties", new ByteArrayInputStream(DIGIT.getBytes(
        StandardCharsets.UTF_8)));
  }

  @Test
  void aMatchingGraphPassesWhateverItsBatchDimension() {
    SameDiff free = SameDiff.create();
    free.placeHolder("image", DataType.FLOAT, -1, 28, 28);
    free.placeHolder("softmax_label", DataType.INT32, -1);
    SameDiffBinding.check(digit(), free);
    SameDiff fixed = SameDiff.create();
    fixed.placeHolder("image", DataType.FLOAT, 64, 28, 28);
    fixed.placeHolder("softmax_label", DataType.INT32, 64);
    SameDiffBinding.check(digit(), fixed);
  }

  @Test
  void everyMismatchIsListed() {
    SameDiff g = SameDiff.create();
    g.placeHolder("image", DataType.FLOAT, -1, 784);
    g.placeHolder("label", DataType.INT32, -1);
    g.placeHolder("softmax_label", DataType.FLOAT, -1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SameDiffBinding.check(digit(), g));
    assertEquals("demo.DigitProvider does not match the graph's placeholders:\n"
        + "  - 'image': provided shape [1, 28, 28] (batch axis first), placeholder shape [-1, 784]\n"
        + "  - 'softmax_label': provided dtype INT32 (INT), placeholder dtype FLOAT\n"
        + "  - placeholder 'label' is not provided; the provider's names are [image, softmax_label]", e.getMessage());
  }
}
