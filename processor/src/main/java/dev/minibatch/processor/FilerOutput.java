package dev.minibatch.processor;

import com.palantir.javapoet.JavaFile;
import com.squareup.kotlinpoet.FileSpec;
import dev.minibatch.processor.internal.model.Output;
import dev.minibatch.processor.internal.model.Position;
import dev.minibatch.processor.internal.model.SourceType;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.annotation.processing.Filer;
import javax.annotation.processing.Messager;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;
import org.jspecify.annotations.Nullable;

/**
 * Writes through javac's {@link Filer}, each file with its sample type as the one originating
 * element (what makes the processor isolating for Gradle), and reports through the {@link Messager}
 * at the most precise {@link JavacPosition}.
 *
 * <p>Kotlin sources go elsewhere: the Filer knows only Java sources, class files and resources.
 * kapt passes {@code -Akapt.kotlin.generated=DIR}, the directory it compiles generated Kotlin from
 * (the kotlin-maven-plugin's {@code target/generated-sources/kaptKotlin/compile}, Gradle's {@code
 * build/generated/source/kaptKotlin/main}), and a Kotlin file is written there directly. Plain javac
 * passes no such option, so it writes no Kotlin and says nothing about it.
 *
 * @param kaptKotlin kapt's Kotlin directory; null outside kapt
 */
record FilerOutput(Filer filer, Messager messager, @Nullable Path kaptKotlin) implements Output {
  /** The option kapt sets (never a user) to the directory it compiles generated Kotlin from. */
  static final String KAPT_KOTLIN_GENERATED = "kapt.kotlin.generated";

  /** kapt's Kotlin directory from the processor options; null when not run by kapt. */
  static @Nullable Path kaptKotlinDirectory(Map<String, String> options) {
    String dir = options.get(KAPT_KOTLIN_GENERATED);
    return dir == null || dir.isBlank() ? null : Path.of(dir);
  }

  @Override
  public void writeJava(SourceType origin, JavaFile file) {
    String name = file.packageName().isEmpty() ? file.typeSpec().name()
        : file.packageName() + "." + file.typeSpec().name();
    try {
      JavaFileObject source = filer.createSourceFile(name, element(origin));
      try (Writer w = source.openWriter()) {
        file.writeTo(w);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + name, e);
    }
  }

  @Override
  public boolean writesKotlin() {
    return kaptKotlin != null;
  }

  /** Writes {@code file} as {@code DIR/<package path>/<name>.kt}, replacing an earlier one. */
  @Override
  public void writeKotlin(SourceType origin, FileSpec file) {
    if (kaptKotlin == null) {
      throw new IllegalStateException("no kapt.kotlin.generated directory: check writesKotlin() first");
    }
    Path out = kaptKotlin;
    if (!file.getPackageName().isEmpty()) {
      out = out.resolve(file.getPackageName().replace('.', '/'));
    }
    out = out.resolve(file.getName() + ".kt");
    try {
      StringBuilder text = new StringBuilder();
      file.writeTo(text);
      Files.createDirectories(out.getParent());
      Files.writeString(out, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + out, e);
    }
  }

  @Override
  public void writeResource(SourceType origin, String path, String text) {
    try {
      FileObject file = filer.createResource(StandardLocation.CLASS_OUTPUT, "", path, element(origin));
      try (Writer w = new OutputStreamWriter(file.openOutputStream(), StandardCharsets.ISO_8859_1)) {
        w.write(text);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + path, e);
    }
  }

  @Override
  public void error(@Nullable Position at, String message) {
    if (!(at instanceof JavacPosition p)) {
      messager.printMessage(Diagnostic.Kind.ERROR, message);
    } else if (p.annotation() != null && p.value() != null) {
      messager.printMessage(Diagnostic.Kind.ERROR, message, p.element(), p.annotation(), p.value());
    } else if (p.annotation() != null) {
      messager.printMessage(Diagnostic.Kind.ERROR, message, p.element(), p.annotation());
    } else {
      messager.printMessage(Diagnostic.Kind.ERROR, message, p.element());
    }
  }

  /** The element a {@link JavacType} stands for: this front end only sees its own types. */
  private static Element element(SourceType origin) {
    return ((JavacType) origin).element();
  }
}
