package dev.minibatch.runtime.internal;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.runtime.io.FuzzChecks;
import java.io.ByteArrayInputStream;

/**
 * Fuzzes {@link ProviderManifest#parse}, the reader of the manifest the annotation processor writes
 * for each generated provider (what the CLI's {@code describe} and the model-binding checks read):
 * every input ends in a manifest whose arrays describe themselves ({@code provideData} and {@code
 * provideLabel} for a batch of 32), or in an {@code IllegalArgumentException} whose message starts
 * with the manifest's name; any other throwable is a finding. Seeds: manifests as the processor
 * writes them (fixed shapes, a scalar label, a variable axis with its bound), under {@code
 * ProviderManifestFuzzTestInputs/parse}. Without {@code JAZZER_FUZZ} this replays the seeds and every
 * committed finding; see docs/bad-input.md to fuzz.
 */
class ProviderManifestFuzzTest {
  private static final String SOURCE = "META-INF/minibatch/demo.FuzzedProvider.properties";

  @FuzzTest(maxDuration = "5m")
  void parse(byte[] input) {
    FuzzChecks.checkText(SOURCE + ": ", input.length, () -> {
      ProviderManifest m = ProviderManifest.parse(SOURCE, new ByteArrayInputStream(input));
      m.provideData(32);
      m.provideLabel(32);
    });
  }
}
