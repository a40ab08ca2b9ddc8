package dev.minibatch.runtime.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.runtime.internal.ProviderManifest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;

/** The model-binding check reads a provider's generated manifest, without building the provider. */
class ManifestBindingTest {
  /** What the processor writes for a 28x28 float image and an int label (docs/generated-code.md). */
  private static final String DIGIT = String.join("\n",
      "format=2", "sample=demo.Digit", "provider=demo.DigitProvider", "batch=demo.DigitBatch", "batchSize=0",
      "slots=2",
      "slot.0=image DATA FLOAT32 [28,28] NHW", "slot.0.property=image",
      "slot.1=softmax_label LABEL INT32 [] N", "slot.1.property=label", "");

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

  @Test
  void theManifestIsFoundByTheProvidersNameWithoutLoadingItsClass(@TempDir Path dir) throws IOException {
    Path resource = dir.resolve(ProviderManifest.resourceNames("demo.DigitProvider").get(0));
    Files.createDirectories(resource.getParent());
    Files.writeString(resource, DIGIT);
    SameDiff g = SameDiff.create();
    g.placeHolder("image", DataType.FLOAT, -1, 28, 28);
    g.placeHolder("softmax_label", DataType.INT32, -1);
    try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
      SameDiffBinding.check("demo.DigitProvider", loader, g);
      g.placeHolder("extra", DataType.FLOAT, -1);
      IllegalArgumentException mismatch = assertThrows(IllegalArgumentException.class,
          () -> SameDiffBinding.check("demo.DigitProvider", loader, g));
      assertEquals("demo.DigitProvider does not match the graph's placeholders:\n"
          + "  - placeholder 'extra' is not provided; the provider's names are [image, softmax_label]", mismatch.getMessage());
      IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
          () -> SameDiffBinding.check("demo.Missing", loader, g));
      assertEquals("no generated schema for demo.Missing on the class path: looked for "
          + ProviderManifest.resourceNames("demo.Missing") + "; is it a provider (or sample) of @DataProvider?",
          none.getMessage());
    }
  }
}
