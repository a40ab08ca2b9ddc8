package dev.minibatch.processor.internal.model;

import com.palantir.javapoet.JavaFile;
import com.squareup.kotlinpoet.FileSpec;
import org.jspecify.annotations.Nullable;

/**
 * Where the core's results go: generated files, each from one sample type (its originating
 * element, so the processor is isolating), and diagnostics.
 */
public interface Output {
  /** Writes {@code file}, generated from {@code origin} only. */
  void writeJava(SourceType origin, JavaFile file);

  /**
   * True when this front end has somewhere to put Kotlin sources: KSP always, javac only under kapt
   * (its {@code kapt.kotlin.generated} directory). Without it, no Kotlin is generated.
   */
  boolean writesKotlin();

  /** Writes the Kotlin source {@code file}, generated from {@code origin} only; only when {@link #writesKotlin()}. */
  void writeKotlin(SourceType origin, FileSpec file);

  /** Writes the class-path resource {@code path} ({@code META-INF/...}) as ISO-8859-1 text. */
  void writeResource(SourceType origin, String path, String text);

  /** Reports an error at {@code at}, or about the whole compilation when null. */
  void error(@Nullable Position at, String message);
}
