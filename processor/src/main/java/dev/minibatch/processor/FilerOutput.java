package dev.minibatch.processor;

import com.palantir.javapoet.JavaFile;
import dev.minibatch.processor.internal.model.Output;
import dev.minibatch.processor.internal.model.Position;
import dev.minibatch.processor.internal.model.SourceType;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
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
 */
record FilerOutput(Filer filer, Messager messager) implements Output {
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
