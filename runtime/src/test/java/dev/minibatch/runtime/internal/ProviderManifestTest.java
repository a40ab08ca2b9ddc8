package dev.minibatch.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.DType;
import dev.minibatch.Role;
import dev.minibatch.SampleSchema;
import dev.minibatch.shape.Shape;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A manifest's slots are {@link SampleSchema.Field}s in their one text form; a malformed manifest
 * is an error naming the manifest, the key and where in its value the text departs from the form
 * (issue 41: the fuzzer's findings escaped as a bare NumberFormatException, Properties' own
 * message, or a DataDesc error only when provideData ran).
 */
class ProviderManifestTest {
  private static final String SOURCE = "META-INF/minibatch/demo.DigitProvider.properties";
  private static final String HEAD = "format=2\nsample=demo.Digit\nprovider=demo.DigitProvider\nbatch=demo.DigitBatch\n"
      + "batchSize=0\n";

  private static ProviderManifest parse(String text) {
    return ProviderManifest.parse(SOURCE, new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1)));
  }

  private static String error(String text) {
    return assertThrows(IllegalArgumentException.class, () -> parse(text)).getMessage();
  }

  private static String slot(String field) {
    return HEAD + "slots=1\nslot.0=" + field + "\nslot.0.property=image\n";
  }

  @Test
  void slotsReadAsTheirFields() {
    ProviderManifest m = parse(HEAD + "slots=2\nslot.0=tokens DATA INT32 [VARIABLE,8] NTC maxLength=50\n"
        + "slot.0.property=words\nslot.1=label LABEL INT64 [] N\nslot.1.property=y\n");
    SampleSchema.Field tokens = new SampleSchema.Field("tokens", Role.DATA, Shape.of(Shape.VARIABLE, 8), DType.INT32,
        "NTC", 50);
    SampleSchema.Field label = new SampleSchema.Field("label", Role.LABEL, Shape.scalar(), DType.INT64, "N", 0);
    assertEquals(List.of(new ProviderManifest.Slot(tokens, "words"), new ProviderManifest.Slot(label, "y")), m.slots());
    assertEquals(SampleSchema.of(List.of(tokens, label)), m.schema());
    assertEquals(Shape.of(16, Shape.VARIABLE, 8), m.provideData(16).get(0).shape());
    assertEquals(50, m.provideData(16).get(0).maxLength());
    assertEquals(Shape.of(16), m.provideLabel(16).get(0).shape());
  }

  @Test
  void aBadSlotNamesTheManifestTheKeyAndTheColumn() {
    assertEquals(SOURCE + ": 'slot.0' column 24: expected a dim (a positive integer, or VARIABLE for the variable axis),"
        + " found 'x'", error(slot("image DATA FLOAT32 [28,x] NHW")));
    assertEquals(SOURCE + ": 'slot.0' column 7: expected a role (one of [DATA, LABEL]), found 'INPUT'",
        error(slot("image INPUT FLOAT32 [28,28] NHW")));
    // A 2-axis sample under a 4-axis layout: found at parse, not when provideData runs.
    assertEquals(SOURCE + ": 'slot.0' column 28: expected a layout for the sample shape [28,28]: layout 'NCHW' names 4"
        + " axes but a batch of rank-2 samples has 3 (the batch axis N, then one per sample axis)",
        error(slot("image DATA FLOAT32 [28,28] NCHW")));
    assertEquals(SOURCE + ": no 'slot.0.property'", error(HEAD + "slots=1\nslot.0=image DATA FLOAT32 [28,28] NHW\n"));
    assertEquals(SOURCE + ": slots 0 and 1 are both named 'x'; names must be unique across data and labels",
        error(HEAD + "slots=2\nslot.0=x DATA FLOAT32 [] N\nslot.0.property=a\nslot.1=x LABEL INT32 [] N\n"
            + "slot.1.property=b\n"));
  }

  @Test
  void anotherFormatIsNamed() {
    assertEquals(SOURCE + ": manifest format 1 is not supported (this runtime reads 2); compile the provider with this"
        + " version's processor", error(slot("image DATA FLOAT32 [28,28] NHW").replace("format=2", "format=1")));
  }

  @Test
  void negativeCountsAndABadEscapeNameTheManifest() {
    assertEquals(SOURCE + ": 'slots' must be >= 0, found -1", error(HEAD + "slots=-1\n"));
    assertEquals(SOURCE + ": not a properties file: Malformed \\uxxxx encoding.", error(HEAD + "sample=\\u12\n"));
  }
}
