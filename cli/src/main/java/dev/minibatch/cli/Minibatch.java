package dev.minibatch.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code minibatch} command: {@code inspect}, {@code validate}, {@code bench}, {@code show}, {@code im2rec},
 * {@code describe} and {@code tokenize}. {@link #main(String[])} exits with the command's {@linkplain ExitCode exit code};
 * {@link #run(PrintStream, PrintStream, String...)} runs a command in-process and returns it.
 */
@Command(
    name = "minibatch",
    mixinStandardHelpOptions = true,
    versionProvider = Minibatch.Version.class,
    subcommands = {InspectCommand.class, ValidateCommand.class, BenchCommand.class, ShowCommand.class,
        DescribeCommand.class, Im2RecCommand.class, TokenizeCommand.class, CommandLine.HelpCommand.class},
    description = {
        "Look into data files and generated providers before you train on them.",
        "Formats: CSV, MNIST idx (raw or .gz), HDF5, RecordIO image records, image folders and shard sets (local, "
            + "hdfs://, s3a://), detected from the file's first bytes or the directory's contents."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  minibatch inspect t10k-images-idx3-ubyte.gz",
        "      shapes, counts, the class histogram of the labels file beside it, first rows",
        "  minibatch validate --max-problems 20 data.csv",
        "      every bad row as file:line: message; exit code 1 if there is any",
        "  minibatch bench --batch 256 --epochs 3 --shuffle train.h5",
        "      samples/s, MB/s, per-stage times and the bottleneck",
        "  minibatch show --compare --rand-mirror --brightness 0.4 train.rec",
        "      grid.png: the first 16 images, each original beside its augmented image",
        "  minibatch im2rec data/train images --resize 256",
        "      pack images/<class>/<file> into data/train.rec and .idx (MXNet's im2rec)",
        "  minibatch describe --classpath target/classes demo.Digit",
        "      the arrays of the provider generated from demo.Digit",
        "  minibatch tokenize --readers 2 corpus-tokens corpus.jsonl",
        "      token ids of every document (cl100k_base) as a shard set",
        "  minibatch help inspect",
        "      the options of one command"},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:success (validate: no problems)",
        "1:validate found problems",
        "2:usage error (no command, unknown option, missing argument, a value out of range): the message and the usage",
        "3:input error (missing or unreadable file, unknown format, a file or record the reader rejects, "
            + "no manifest for the class): one line naming the file and record; --verbose adds the stack trace",
        "4:internal error (a bug: the stack trace is printed)"})
public final class Minibatch implements Runnable {
  /** The exit codes, as listed in {@code --help} and docs/cli.md. */
  public static final class ExitCode {
    /** Success; for {@code validate}, no problems found. */
    public static final int OK = 0;
    /** {@code validate} found problems. */
    public static final int PROBLEMS = 1;
    /** A usage error: no command, an unknown option, a missing or bad argument, a value out of range. */
    public static final int USAGE = 2;
    /** An input error: a missing or unreadable file, an unknown format, a class without manifest. */
    public static final int INPUT = 3;
    /** An internal error. */
    public static final int INTERNAL = 4;

    private ExitCode() {}
  }

  @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
      description = "On an input error, print the stack trace after the one-line message.")
  boolean verbose;

  @Spec CommandSpec spec;

  final PrintStream out;
  final PrintStream err;

  private Minibatch(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** Runs the command line and exits with its exit code. */
  public static void main(String[] args) {
    System.exit(run(System.out, System.err, args));
  }

  /**
   * Runs a command line in-process: results on {@code out}, progress, warnings and errors on {@code
   * err}.
   *
   * @return the exit code
   */
  public static int run(PrintStream out, PrintStream err, String... args) {
    quietLogging();
    CommandLine cl = new CommandLine(new Minibatch(out, err));
    cl.setOut(new PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true));
    cl.setErr(new PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true));
    cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
      Failure f = Failure.of(e);
      cmd.getErr().println("minibatch " + cmd.getCommandName() + ": " + f.message());
      if (f.showsStackTrace(verbose(parsed))) {
        e.printStackTrace(cmd.getErr());
      }
      cmd.getErr().flush();
      return f.exitCode();
    });
    return cl.execute(args);
  }

  /** Whether {@code --verbose} was given, before or after the command's name. */
  private static boolean verbose(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption("--verbose")) {
        return true;
      }
    }
    return false;
  }

  /** Warnings and errors only: no library INFO lines (ND4J's banner, jhdf), nor Hadoop's native-library notice. */
  private static void quietLogging() {
    setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
    setIfAbsent("org.slf4j.simpleLogger.log.org.nd4j", "error");
    setIfAbsent("org.slf4j.simpleLogger.log.io.jhdf", "error");
    // Shard sets go through Hadoop's FileSystem, which says once per run that it has no native library
    // (it uses its Java code, as it should here).
    setIfAbsent("org.slf4j.simpleLogger.log.org.apache.hadoop.util.NativeCodeLoader", "error");
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }

  /** Without a command: a usage error, so that a script that forgot the command does not pass. */
  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing command: give one of inspect, validate, bench, "
        + "show, describe, im2rec, tokenize or help");
  }

  /** The version from the jar's manifest, or "development" when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Minibatch.class.getPackage().getImplementationVersion();
      return new String[] {"minibatch " + (v == null ? "(development build)" : v)};
    }
  }
}
