package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.processing.SymbolProcessor;
import com.google.devtools.ksp.processing.SymbolProcessorEnvironment;
import com.google.devtools.ksp.processing.SymbolProcessorProvider;

/**
 * The entry point KSP2 discovers through {@code
 * META-INF/services/com.google.devtools.ksp.processing.SymbolProcessorProvider}: Gradle's {@code
 * ksp("dev.minibatch:minibatch-processor-ksp:...")}, or the processor path of a standalone KSP2
 * run. Options are the javac processor's ({@code minibatch.daggerModule}, {@code
 * minibatch.generatedAnnotation}), passed as KSP arguments.
 */
public final class MinibatchSymbolProcessorProvider implements SymbolProcessorProvider {
  /** Called by KSP. */
  public MinibatchSymbolProcessorProvider() {}

  @Override
  public SymbolProcessor create(SymbolProcessorEnvironment environment) {
    return new MinibatchSymbolProcessor(environment);
  }
}
