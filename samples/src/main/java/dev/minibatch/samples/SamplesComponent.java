package dev.minibatch.samples;

import dagger.Component;

/**
 * A Dagger component wiring the generated module ({@code -Aminibatch.daggerModule=true}): an app
 * injects the provider builder and adds its samples.
 */
@Component(modules = DigitProviderModule.class)
public interface SamplesComponent {
  /** A fresh builder with Digit's defaults (batch size 64). */
  DigitProvider.Builder digits();
}
