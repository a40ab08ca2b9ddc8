package dev.minibatch.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A malformed manifest is an error naming the manifest, the slot and the key (issue 41: the
 * fuzzer's findings escaped as a bare NumberFormatException, Properties' own message, or a DataDesc
 * error only when provideData ran).
 */
class ProviderManifestTest {
  private static final String SOURCE = "META-INF/minibatch/demo.DigitProvider.properties";
  private static final String HEAD = "format=1\nsample=demo.Digit\nprovider=demo.DigitProvider\nbatch=demo.DigitBatch\n"
      + "batchSize=0\nslots=1\n";

  private static String error(String text) {
    return assertThrows(IllegalArgumentException.class, () -> ProviderManifest.parse(SOURCE,
        new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1)))).getMessage();
  }

  private static String slot(String shape, String layout, String extra) {
    return HEAD + "slot.0.name=image\nslot.0.role=DATA\nslot.0.shape=" + shape + "\nslot.0.dtype=FLOAT32\nslot.0.layout="
        + layout + "\nslot.0.property=image\n" + extra;
  }

  @Test
  void aShapeThatIsNotIntegersNamesTheManifestTheSlotAndTheKey() {
    assertEquals(SOURCE + ": slot 0: 'slot.0.shape' must be comma-separated integers (-1 for the variable axis), found"
        + " '28,x'", error(slot("28,x", "NHW", "")));
    assertEquals(SOURCE + ": slot 0: 'slot.0.maxLength' must be an integer >= 0, found '-'",
        error(slot("28,28", "NHW", "slot.0.maxLength=-\n")));
  }

  @Test
  void aSlotItsDataDescRejectsIsTheManifestsError() {
    // A 2-axis sample under a 4-axis layout: found at parse, not when provideData runs.
    String m = error(slot("28,28", "NCHW", ""));
    assertEquals(SOURCE + ": slot 0: ", m.substring(0, SOURCE.length() + 10), m);
    assertEquals(SOURCE + ": slot 0: 'slot.0.role' must be one of [DATA, LABEL], found 'INPUT'",
        error(slot("28,28", "NHW", "").replace("role=DATA", "role=INPUT")));
  }

  @Test
  void negativeCountsAndABadEscapeNameTheManifest() {
    assertEquals(SOURCE + ": 'slots' must be >= 0, found -1", error(HEAD.replace("slots=1", "slots=-1")));
    assertEquals(SOURCE + ": not a properties file: Malformed \\uxxxx encoding.", error(HEAD + "sample=\\u12\n"));
  }
}
