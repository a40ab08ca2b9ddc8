package dev.minibatch.benchmarks.text;

import dev.minibatch.benchmarks.io.ImagePairs;
import dev.minibatch.text.Documents;
import dev.minibatch.text.TokenShards;
import dev.minibatch.text.Tokenizer;
import dev.minibatch.text.Tokenizers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Tokenising into a shard set against the tokeniser alone, in MB of UTF-8 text per second, pair by
 * pair in one JVM (as {@link ImagePairs}): every round runs each variant once over the same corpus,
 * in an order that rotates from round to round, and each ratio is taken within a round.
 *
 * <ul>
 *   <li>{@code encode N}: the limit, {@code Tokenizer.encode} of every document on {@code N} plain
 *       threads (the documents dealt in contiguous halves), the ids dropped;
 *   <li>{@code write N}: {@code TokenShards} with {@code readers(N)} (0: on the calling thread)
 *       writing the set to a fresh local directory (uncompressed), the whole call timed.
 * </ul>
 *
 * <p>The corpus is this repository's own English prose, the paragraphs of {@code docs/**.md} (each
 * a document), repeated to {@code args[2]} MB.
 *
 * <p>Run (from the repository root): {@code mvn -B -ntp -q -pl benchmarks -am -DskipTests package
 * dependency:build-classpath -Dmdep.outputFile=/tmp/cp}, then {@code java -Xmx4g -cp
 * "benchmarks/target/classes:$(cat /tmp/cp)" dev.minibatch.benchmarks.text.TokenizePairs 7 cl100k_base 8}
 * (rounds, tokeniser, MB of text).
 */
public final class TokenizePairs {
  private TokenizePairs() {}

  /** Runs the rounds and prints MB/s of every variant and the ratios. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    Tokenizer tokenizer = Tokenizers.named(args.length > 1 ? args[1] : "cl100k_base");
    int megabytes = args.length > 2 ? Integer.parseInt(args[2]) : 8;
    List<String> docs = corpus(Path.of("docs"), megabytes * 1_000_000L);
    long bytes = docs.stream().mapToLong(d -> d.getBytes(StandardCharsets.UTF_8).length).sum();
    double mb = bytes / 1e6;
    System.out.printf("corpus: %d documents, %.1f MB of UTF-8, %s, %d cores%n", docs.size(), mb, tokenizer.name(),
        Runtime.getRuntime().availableProcessors());
    Path out = Files.createTempDirectory("tokenize-pairs");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<String> names = List.of("encode 1", "encode 2", "write readers(0)", "write readers(1)", "write readers(2)");
    List<ImagePairs.Epoch> epochs = List.of(
        () -> encode(tokenizer, docs, 0, docs.size()),
        () -> {
          Future<Long> half = pool.submit(() -> encode(tokenizer, docs, 0, docs.size() / 2));
          encode(tokenizer, docs, docs.size() / 2, docs.size());
          half.get();
        },
        () -> write(tokenizer, docs, 0, out),
        () -> write(tokenizer, docs, 1, out),
        () -> write(tokenizer, docs, 2, out));
    // rates() divides its count by the seconds: with a count of 1, epochs per second.
    double[][] perSecond = ImagePairs.rates(epochs, rounds, 1);
    pool.shutdown();
    delete(out);
    System.out.println("MB/s of text, median (min-max) over " + rounds + " rounds:");
    for (int v = 0; v < names.size(); v++) {
      int vv = v;
      ImagePairs.print(names.get(v), ImagePairs.column(perSecond, r -> r[vv] * mb));
    }
    System.out.println("ratios within each round, median (min-max):");
    ImagePairs.print("write readers(0) / encode 1", ImagePairs.column(perSecond, r -> r[2] / r[0]));
    ImagePairs.print("write readers(1) / encode 1", ImagePairs.column(perSecond, r -> r[3] / r[0]));
    ImagePairs.print("write readers(2) / encode 2", ImagePairs.column(perSecond, r -> r[4] / r[1]));
    ImagePairs.print("encode 1 -> 2 threads", ImagePairs.column(perSecond, r -> r[1] / r[0]));
    ImagePairs.print("write readers 1 -> 2", ImagePairs.column(perSecond, r -> r[4] / r[3]));
    System.exit(0);
  }

  private static long encode(Tokenizer tokenizer, List<String> docs, int from, int to) {
    long ids = 0;
    for (int i = from; i < to; i++) {
      ids += tokenizer.encode(docs.get(i)).length;
    }
    return ids;
  }

  private static void write(Tokenizer tokenizer, List<String> docs, int readers, Path out) throws IOException {
    Path set = out.resolve("set");
    delete(set);
    TokenShards.Written w = TokenShards.builder().tokenizer(tokenizer).readers(readers).build()
        .write(Documents.of(docs), set.toString());
    if (w.shards().samples() != docs.size()) {
      throw new IllegalStateException("wrote " + w.shards().samples() + " of " + docs.size() + " documents");
    }
  }

  /** The paragraphs of the Markdown files under {@code docs}, in path order, repeated to {@code bytes}. */
  static List<String> corpus(Path docs, long bytes) throws IOException {
    List<String> paragraphs = new ArrayList<>();
    try (Stream<Path> files = Files.walk(docs)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
        for (String p : Files.readString(f).split("\n\\s*\n")) {
          if (!p.isBlank()) {
            paragraphs.add(p.strip());
          }
        }
      }
    }
    if (paragraphs.isEmpty()) {
      throw new IllegalStateException("no Markdown under " + docs.toAbsolutePath() + ": run from the repository root");
    }
    List<String> out = new ArrayList<>();
    long total = 0;
    for (int i = 0; total < bytes; i++) {
      String p = paragraphs.get(i % paragraphs.size());
      out.add(p);
      total += p.getBytes(StandardCharsets.UTF_8).length;
    }
    return out;
  }

  private static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
