package dev.minibatch.cli;

import dev.minibatch.runtime.pipeline.Progress;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.runtime.reader.Readers;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.text.Documents;
import dev.minibatch.text.TokenShards;
import dev.minibatch.text.Tokenizer;
import dev.minibatch.text.Tokenizers;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code minibatch tokenize OUTPUT INPUT...}: minibatch-text's {@link TokenShards}. */
@Command(name = "tokenize", mixinStandardHelpOptions = true,
    description = {"Tokenises documents into a shard set at OUTPUT: one sample per document, its token ids "
        + "(column 'tokens', int32, variable length) and its index among all inputs (column 'doc', int64). "
        + "An INPUT is a .jsonl file (each line a JSON object, the document its --field member), a directory "
        + "(each .txt file under it a document, in path order) or a text file (one document, or each line one "
        + "with --lines); several are read one after another. A line that cannot be read is an error naming the "
        + "file and line."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  minibatch tokenize --readers 2 corpus-tokens corpus.jsonl",
        "      the 'text' member of every line, cl100k_base, on 2 threads",
        "  minibatch tokenize --tokenizer o200k_base --lines --samples-per-file 100000 lines-tokens a.txt b.txt",
        "      every line a document",
        "  minibatch inspect corpus-tokens",
        "      what was written"})
final class TokenizeCommand implements Callable<Integer> {
  @ParentCommand Minibatch parent;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "OUTPUT", description = "The shard set's directory (new or empty).")
  String output;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "INPUT", description = "Files or directories of text.")
  List<Path> inputs;

  @Option(names = "--tokenizer", paramLabel = "NAME", defaultValue = "cl100k_base",
      description = "cl100k_base (default) or o200k_base, bundled.")
  String tokenizer;

  @Option(names = "--field", paramLabel = "NAME", defaultValue = "text",
      description = "The member of a .jsonl line that holds the document (default: ${DEFAULT-VALUE}).")
  String field;

  @Option(names = "--lines", description = "Each line of a text file is a document (empty lines too).")
  boolean lines;

  @Option(names = "--readers", paramLabel = "N", defaultValue = "1",
      description = "Threads that tokenise, at least 1; the output is the same for any number (default: ${DEFAULT-VALUE}).")
  int readers;

  @Option(names = "--samples-per-file", paramLabel = "N", defaultValue = "10000",
      description = "Documents per shard file, at least 1 (default: ${DEFAULT-VALUE}).")
  int samplesPerFile;

  @Option(names = "--compression", paramLabel = "C", defaultValue = "NONE",
      description = "NONE (default), SNAPPY or ZSTD.")
  ShardWriter.Compression compression;

  @Option(names = "--progress", negatable = true,
      description = "Draw a progress bar of the documents read on standard error (default: only when it is a "
          + "terminal).")
  @Nullable Boolean progress;

  @Override
  public Integer call() {
    OptionRange.atLeast(spec, "--readers", readers, 1);
    OptionRange.atLeast(spec, "--samples-per-file", samplesPerFile, 1);
    Tokenizer t;
    try {
      t = Tokenizers.named(tokenizer);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "Invalid value for option '--tokenizer': " + e.getMessage());
    }
    // The inputs are checked before anything is written: a missing one is an input error naming it.
    List<Reader<String>> sources = new ArrayList<>();
    long known = 0;
    for (Path in : inputs) {
      Documents d = documents(in);
      sources.add(d.reader());
      known = d.count() == 0 || known < 0 ? -1 : known + d.count();
    }
    Reader<String> all = sources.size() == 1 ? sources.get(0) : Readers.chain(sources);
    boolean bar = progress != null ? progress : Terminal.isTerminal(parent.err);
    long total = Math.max(known, 0);
    Reader<String> read = bar ? () -> Progress.track(all.iterator(), "tokenize", total, parent.err) : all;
    long t0 = System.nanoTime();
    TokenShards.Written w = TokenShards.builder().tokenizer(t).readers(readers)
        .writer(ShardWriter.builder().samplesPerFile(samplesPerFile).compression(compression).build()).build()
        .write(Documents.of(read), output);
    double seconds = (System.nanoTime() - t0) / 1e9;
    long docs = w.shards().samples();
    PrintWriter out = spec.commandLine().getOut();
    out.println(String.format(Locale.ROOT, "tokenized %,d %s into %,d tokens (%s, %.1f a document) in %.1f s",
        docs, docs == 1 ? "document" : "documents", w.tokens(), t.name(), (double) w.tokens() / docs, seconds));
    out.println("wrote " + w.shards());
    out.flush();
    return Minibatch.ExitCode.OK;
  }

  private Documents documents(Path in) {
    if (Files.isDirectory(in)) {
      return Documents.directory(in);
    }
    String name = in.getFileName() == null ? "" : in.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
      return Documents.jsonLines(in, field);
    }
    return lines ? Documents.lines(in) : Documents.files(List.of(in));
  }
}
