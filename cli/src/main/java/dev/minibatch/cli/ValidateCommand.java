package dev.minibatch.cli;

import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.Location;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code minibatch validate FILE...}. */
@Command(name = "validate", mixinStandardHelpOptions = true,
    description = {"Walks every record of each file and prints every problem with its location (file, line or "
        + "record, field), in the runtime's own words. Exits 1 when it found a problem, so scripts can gate on it."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  minibatch validate data.csv",
        "      one line per problem: file:line: what was expected and what was found",
        "  minibatch validate --max-problems 1000 a.csv b.csv",
        "  minibatch validate t10k-images-idx3-ubyte.gz && echo fine",
        "      the images, and the count of the labels file beside them",
        "  minibatch validate s3a://bucket/sets/digits",
        "      a shard set: every file's CRC-32C, every page's checksum, every page and every encoded image decoded"})
final class ValidateCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Mixin InputMixin input;

  @Option(names = "--max-problems", paramLabel = "N", defaultValue = "100",
      description = "Stop after N problems per file, at least 1 (default: ${DEFAULT-VALUE}).")
  int maxProblems;

  @Parameters(paramLabel = "FILE", arity = "1..*", description = "The files, folders or shard sets to validate: "
      + "local paths, or URIs (hdfs://, s3a://) of a format that reads them.")
  List<String> files;

  @Override
  public Integer call() {
    OptionRange.atLeast(spec, "--max-problems", maxProblems, 1);
    java.io.PrintWriter out = spec.commandLine().getOut();
    Formats formats = Formats.load(Minibatch.class.getClassLoader());
    int total = 0;
    for (String arg : files) {
      Location file = input.location(arg);
      Format format = formats.of(file, input.format);
      Format.Problems problems = new Format.Problems(maxProblems);
      format.validate(file, input.options(0, Settings.none()), problems);
      for (Format.Problems.Problem p : problems.list()) {
        out.println(p);
      }
      int n = problems.list().size();
      total += n;
      out.println(file + ": " + (n == 0 ? "ok (" + format.name() + ")" : n + (problems.isFull() ? " problems (stopped at "
          + "--max-problems " + maxProblems + ")" : n == 1 ? " problem" : " problems")));
    }
    out.flush();
    return total == 0 ? Minibatch.ExitCode.OK : Minibatch.ExitCode.PROBLEMS;
  }
}
