package dev.minibatch.cli;

import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.Location;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code minibatch inspect FILE}. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
    description = {"Shows what a data file holds: its format, shapes, element types, sample count, a class "
        + "histogram where there are labels, value ranges and the first rows."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  minibatch inspect t10k-images-idx3-ubyte.gz",
        "      MNIST images, with the class histogram of the labels file beside them",
        "  minibatch inspect --rows 5 iris.csv",
        "      the header and the class-name column are detected",
        "  minibatch inspect --no-header --label-column 0 data.csv",
        "  minibatch inspect --dataset images --dataset labels train.h5",
        "  minibatch inspect hdfs://namenode:8020/sets/digits",
        "      a shard set: its arrays, files and rows per file"})
final class InspectCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Mixin InputMixin input;

  @Option(names = "--rows", paramLabel = "N", defaultValue = "3", description = "How many first rows to show, 0 or more (default: ${DEFAULT-VALUE}).")
  int rows;

  @Parameters(paramLabel = "FILE", description = "The file, folder or shard set to inspect: a local path, or a URI "
      + "(hdfs://, s3a://) of a format that reads one.")
  String file;

  @Override
  public Integer call() {
    OptionRange.atLeast(spec, "--rows", rows, 0);
    Location location = input.location(file);
    Format format = Formats.load(Minibatch.class.getClassLoader()).of(location, input.format);
    Format.Report report = format.describe(location, input.options(rows, Settings.none()));
    java.io.PrintWriter out = spec.commandLine().getOut();
    out.println("file: " + location + Bytes.size(location));
    report.print(out);
    return Minibatch.ExitCode.OK;
  }
}
