package dev.minibatch.cli;

import dev.minibatch.SampleSchema;
import dev.minibatch.runtime.internal.ProviderManifest;
import java.io.File;
import java.io.PrintWriter;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code minibatch describe CLASS}. */
@Command(name = "describe", mixinStandardHelpOptions = true,
    description = {"Shows the schema of a generated provider — the names, roles, batch shapes, dtypes and "
        + "layouts of its arrays and its default batch size — from the manifest the annotation processor wrote "
        + "(META-INF/minibatch/<provider>.properties). Neither the provider nor ND4J is loaded."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  minibatch describe --classpath target/classes demo.Digit",
        "      the sample's name finds its provider's manifest",
        "  minibatch describe --classpath app.jar --batch 128 demo.DigitProvider"})
final class DescribeCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = {"--classpath", "-cp"}, paramLabel = "PATHS",
      description = "Where to look: directories and jars separated by the platform's path separator (':' on Linux; default: the tool's own class path).")
  @Nullable String classpath;

  @Option(names = "--batch", paramLabel = "N", description = "Show batch shapes for N rows, at least 1 (default: the provider's default batch size, else B).")
  @Nullable Integer batch;

  @Parameters(paramLabel = "CLASS", description = "A generated provider (demo.DigitProvider) or its sample type (demo.Digit).")
  String className;

  @Override
  public Integer call() throws Exception {
    if (batch != null) {
      OptionRange.atLeast(spec, "--batch", batch, 1);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (URLClassLoader loader = new URLClassLoader(urls(), Minibatch.class.getClassLoader())) {
      ProviderManifest m = ProviderManifest.load(className, loader).orElseThrow(() -> new IllegalArgumentException(
          "no manifest for " + className + " (looked for " + String.join(" and ", ProviderManifest.resourceNames(className))
              + (classpath == null ? " on the tool's class path;"
              + " add --classpath" : " on " + classpath) + "). Is it a @DataProvider built with the minibatch processor?"));
      out.println("provider:   " + m.provider());
      out.println("sample:     " + m.sample());
      out.println("batch:      " + m.batch());
      long rows = batch != null ? batch : m.batchSize();
      out.println("batch size: " + (m.batchSize() > 0 ? m.batchSize() + " (the annotation's default)" : "set on the builder"));
      List<String[]> table = new ArrayList<>();
      table.add(new String[] {"name", "role", "batch shape", "dtype", "layout", "member"});
      for (ProviderManifest.Slot slot : m.slots()) {
        SampleSchema.Field s = slot.field();
        long[] dims = s.sampleShape().toLongArray();
        StringBuilder shape = new StringBuilder("(").append(rows > 0 ? Long.toString(rows) : "B");
        for (long d : dims) {
          shape.append(", ").append(d);
        }
        shape.append(dims.length == 0 ? ",)" : ")");
        table.add(new String[] {s.name(), s.role().name().toLowerCase(Locale.ROOT), shape.toString(), s.dtype().name(),
            s.layout(), slot.property()});
      }
      int[] widths = new int[6];
      for (String[] row : table) {
        for (int i = 0; i < row.length; i++) {
          widths[i] = Math.max(widths[i], row[i].length());
        }
      }
      for (String[] row : table) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < row.length; i++) {
          line.append(i == row.length - 1 ? row[i] : String.format(Locale.ROOT, "%-" + (widths[i] + 2) + "s", row[i]));
        }
        out.println(line.toString().stripTrailing());
      }
    }
    return Minibatch.ExitCode.OK;
  }

  private URL[] urls() throws MalformedURLException {
    if (classpath == null) {
      return new URL[0];
    }
    List<URL> urls = new ArrayList<>();
    for (String entry : classpath.split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        urls.add(Path.of(entry).toUri().toURL());
      }
    }
    return urls.toArray(URL[]::new);
  }
}
