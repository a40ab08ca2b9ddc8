package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.processing.CodeGenerator;
import com.google.devtools.ksp.processing.Dependencies;
import com.google.devtools.ksp.processing.KSPLogger;
import com.google.devtools.ksp.symbol.KSFile;
import com.palantir.javapoet.JavaFile;
import com.squareup.kotlinpoet.FileSpec;
import dev.minibatch.processor.internal.model.Output;
import dev.minibatch.processor.internal.model.Position;
import dev.minibatch.processor.internal.model.SourceType;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Writes through KSP's {@link CodeGenerator}, each file depending on the one source file of its
 * sample ({@code aggregating = false}: KSP's isolating mode, as the javac processor is isolating
 * for Gradle), and reports through the {@link KSPLogger} at the symbol of a {@link KspPosition}.
 */
final class KspOutput implements Output {
  private final CodeGenerator codeGenerator;
  private final KSPLogger logger;

  KspOutput(CodeGenerator codeGenerator, KSPLogger logger) {
    this.codeGenerator = codeGenerator;
    this.logger = logger;
  }

  @Override
  public void writeJava(SourceType origin, JavaFile file) {
    String name = file.typeSpec().name();
    try (Writer w = writer(codeGenerator.createNewFile(dependencies(origin), file.packageName(), name, "java"),
        StandardCharsets.UTF_8)) {
      file.writeTo(w);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + file.packageName() + "." + name, e);
    }
  }

  @Override
  public boolean writesKotlin() {
    return true;
  }

  @Override
  public void writeKotlin(SourceType origin, FileSpec file) {
    try (Writer w = writer(codeGenerator.createNewFile(dependencies(origin), file.getPackageName(), file.getName(), "kt"),
        StandardCharsets.UTF_8)) {
      file.writeTo(w);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + file.getPackageName() + "." + file.getName(), e);
    }
  }

  @Override
  public void writeResource(SourceType origin, String path, String text) {
    int dot = path.lastIndexOf('.');
    try (Writer w = writer(codeGenerator.createNewFileByPath(dependencies(origin), path.substring(0, dot),
        path.substring(dot + 1)), StandardCharsets.ISO_8859_1)) {
      w.write(text);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + path, e);
    }
  }

  @Override
  public void error(@Nullable Position at, String message) {
    logger.error(message, at instanceof KspPosition p ? p.node() : null);
  }

  private static Writer writer(OutputStream out, Charset charset) {
    return new OutputStreamWriter(out, charset);
  }

  /** The sample's own source file; none for a type read from the class path. */
  private static Dependencies dependencies(SourceType origin) {
    KSFile file = ((KspType) origin).declaration().getContainingFile();
    return file == null ? new Dependencies(false) : new Dependencies(false, file);
  }
}
