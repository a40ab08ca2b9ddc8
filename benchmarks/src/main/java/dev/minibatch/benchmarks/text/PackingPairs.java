package dev.minibatch.benchmarks.text;

import dev.minibatch.benchmarks.io.ImagePairs;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.text.BudgetBatch;
import dev.minibatch.text.PackedRow;
import dev.minibatch.text.Packer;
import dev.minibatch.text.Packing;
import dev.minibatch.text.TokenBudget;
import dev.minibatch.text.Tokenizer;
import dev.minibatch.text.Tokenizers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Packing documents into rows of {@code L} = 2048: how full the rows are, and how fast one thread
 * packs, in one run.
 *
 * <p>Efficiency (real tokens over all positions) on two real length distributions, tokenised with
 * {@code cl100k_base}, each document ending in the separator {@code <|endoftext|>} (100257): the
 * paragraphs of this repository's {@code docs/**.md} (English prose, short documents), and the
 * repository's Java source files (whole files, a long tail past {@code L}). Beside it, pad-to-longest
 * batching: 8 documents a batch in their order, each cut at {@code L}, padded to the batch's longest.
 *
 * <p>Token budgets of {@code B} = 16 384 positions a batch on the same two distributions: the
 * largest batch (never over {@code B}) and the mean fill, padded positions and real tokens over
 * {@code B}, for windows of 256 to 16 384 documents, the batches shuffled with seed 7; the documents
 * drawn at random from each corpus (10^6 paragraphs, 10^5 files), as the corpora themselves hold only
 * 10 to 40 batches of {@code B}.
 *
 * <p>Throughput: {@code Packer.add} of every document and {@code Packer.next} into one reused row, on
 * one thread, over the paragraphs repeated to {@code args[1]} documents, in paired rounds as {@link
 * ImagePairs} runs them; the limit beside it is a plain {@code System.arraycopy} of every document
 * into a row-sized buffer.
 *
 * <p>Run (from the repository root): {@code mvn -B -ntp -q -pl benchmarks -am -DskipTests package
 * dependency:build-classpath -Dmdep.outputFile=/tmp/cp}, then {@code java -Xmx2g -cp
 * "benchmarks/target/classes:$(cat /tmp/cp)" dev.minibatch.benchmarks.text.PackingPairs 7 1000000}
 * (rounds, documents per round).
 */
public final class PackingPairs {
  static final int L = 2048;
  static final int END_OF_TEXT = 100_257;

  private PackingPairs() {}

  /** Prints the efficiencies, then the rates of every variant and the ratios. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    Tokenizer cl100k = Tokenizers.cl100k();
    List<int[]> paragraphs = new ArrayList<>();
    for (String p : paragraphsOf(Path.of("docs"))) {
      paragraphs.add(cl100k.encode(p));
    }
    List<int[]> sources = new ArrayList<>();
    for (Path f : javaFiles(Path.of("."))) {
      sources.add(cl100k.encode(Files.readString(f)));
    }
    System.out.printf("L %d, cl100k_base, %d cores%n", L, Runtime.getRuntime().availableProcessors());
    efficiency("docs/**.md paragraphs", paragraphs);
    efficiency("Java source files", sources);
    budget("docs/**.md paragraphs", paragraphs, 1_000_000);
    budget("Java source files", sources, 100_000);

    int[][] docs = new int[count][];
    long tokens = 0;
    for (int i = 0; i < count; i++) {
      docs[i] = paragraphs.get(i % paragraphs.size());
      tokens += docs[i].length + 1;
    }
    double tokensPerDoc = (double) tokens / count;
    System.out.printf("throughput: %d documents a round, %.1f tokens each with the separator%n", count, tokensPerDoc);
    List<String> names = List.of("copy (the limit)", "concatenate", "best fit, window 1", "best fit, window 8",
        "best fit, window 64");
    List<ImagePairs.Epoch> epochs = List.of(
        () -> copy(docs),
        () -> pack(Packing.builder(L).separator(END_OF_TEXT).shiftLabels(true).build(), docs),
        () -> pack(bestFit(1), docs),
        () -> pack(bestFit(8), docs),
        () -> pack(bestFit(64), docs));
    double[][] perSecond = ImagePairs.rates(epochs, rounds, count);
    System.out.println("million documents/s, median (min-max) over " + rounds + " rounds:");
    for (int v = 0; v < names.size(); v++) {
      int vv = v;
      ImagePairs.print(names.get(v), ImagePairs.column(perSecond, r -> r[vv] / 1e6));
    }
    System.out.println("million tokens/s:");
    for (int v = 0; v < names.size(); v++) {
      int vv = v;
      ImagePairs.print(names.get(v), ImagePairs.column(perSecond, r -> r[vv] * tokensPerDoc / 1e6));
    }
    System.out.println("ratio to the copy within each round:");
    for (int v = 1; v < names.size(); v++) {
      int vv = v;
      ImagePairs.print(names.get(v), ImagePairs.column(perSecond, r -> r[vv] / r[0]));
    }
    System.exit(0);
  }

  static Packing bestFit(int window) {
    return Packing.builder(L).bestFit(window).overlong(Packing.Overlong.SPLIT).separator(END_OF_TEXT)
        .shiftLabels(true).build();
  }

  static void efficiency(String name, List<int[]> docs) {
    long tokens = 0;
    long longest = 0;
    long over = 0;
    for (int[] d : docs) {
      tokens += d.length + 1;
      longest = Math.max(longest, d.length + 1);
      over += d.length + 1 > L ? 1 : 0;
    }
    int[][] array = docs.toArray(new int[0][]);
    System.out.printf("%s: %d documents, %d tokens, mean %.0f, longest %d, %d longer than L%n", name, docs.size(),
        tokens, (double) tokens / docs.size(), longest, over);
    System.out.printf("  %-28s %6.2f %%%n", "concatenate", 100 * filled(Packing.builder(L).separator(END_OF_TEXT)
        .build(), array));
    for (int w : new int[] {1, 8, 64}) {
      System.out.printf("  %-28s %6.2f %%%n", "best fit, window " + w, 100 * filled(bestFit(w), array));
    }
    System.out.printf("  %-28s %6.2f %%%n", "pad to longest, 8 a batch", 100 * padToLongest(array, 8));
  }

  static final int B = 16_384;

  /**
   * Token-budget batches of {@code count} documents drawn at random (seed 45) from {@code docs}, each
   * with its separator: the corpus's length distribution at the size of a training set, as the
   * corpora themselves hold only 10 to 40 batches of B. Prints the largest batch and the mean fills.
   */
  static void budget(String name, List<int[]> docs, int count) {
    List<int[]> drawn = new ArrayList<>(count);
    java.util.SplittableRandom random = new java.util.SplittableRandom(45);
    for (int i = 0; i < count; i++) {
      int[] d = docs.get(random.nextInt(docs.size()));
      int[] e = Arrays.copyOf(d, d.length + 1);
      e[d.length] = END_OF_TEXT;
      drawn.add(e);
    }
    System.out.printf("%s, %d drawn, token budget B %d:%n", name, count, B);
    for (int w : new int[] {256, 1024, 4096, 16384}) {
      TokenBudget budget = TokenBudget.builder(B).window(w).seed(7).build();
      long batches = 0;
      long largest = 0;
      long rows = 0;
      double positions = 0;
      double real = 0;
      for (BudgetBatch b : budget.batches(() -> PipelineIterator.of(drawn.iterator()))) {
        batches++;
        rows += b.rows();
        largest = Math.max(largest, b.positions());
        positions += (double) b.positions() / B;
        real += (double) b.realTokens() / B;
      }
      System.out.printf("  window %-6d %6d batches, %6.1f rows mean, largest %6d, mean fill %6.2f %% positions,"
          + " %6.2f %% real tokens%n", w, batches, (double) rows / batches, largest, 100 * positions / batches,
          100 * real / batches);
    }
  }

  /** Real tokens over all positions of the rows. */
  static double filled(Packing packing, int[][] docs) {
    Packer packer = packing.packer();
    PackedRow row = new PackedRow(L);
    long real = 0;
    long rows = 0;
    for (int[] d : docs) {
      packer.add(d);
      while (packer.next(row)) {
        real += row.realTokens();
        rows++;
      }
    }
    packer.finish();
    while (packer.next(row)) {
      real += row.realTokens();
      rows++;
    }
    return (double) real / (rows * L);
  }

  /** Batches of {@code size} documents in order, each cut at L, padded to the batch's longest. */
  static double padToLongest(int[][] docs, int size) {
    long real = 0;
    long positions = 0;
    for (int from = 0; from < docs.length; from += size) {
      int longest = 0;
      int to = Math.min(docs.length, from + size);
      for (int i = from; i < to; i++) {
        int n = Math.min(L, docs[i].length + 1);
        real += n;
        longest = Math.max(longest, n);
      }
      positions += (long) size * longest;
    }
    return (double) real / positions;
  }

  static long sink;

  static void pack(Packing packing, int[][] docs) {
    Packer packer = packing.packer();
    PackedRow row = new PackedRow(L);
    long real = 0;
    for (int[] d : docs) {
      packer.add(d);
      while (packer.next(row)) {
        real += row.realTokens();
      }
    }
    packer.finish();
    while (packer.next(row)) {
      real += row.realTokens();
    }
    sink += real;
  }

  static void copy(int[][] docs) {
    int[] buffer = new int[L];
    int used = 0;
    for (int[] d : docs) {
      int done = 0;
      while (done < d.length) {
        int n = Math.min(L - used, d.length - done);
        System.arraycopy(d, done, buffer, used, n);
        used = (used + n) % L;
        done += n;
      }
    }
    sink += buffer[0];
  }

  static List<String> paragraphsOf(Path docs) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(docs)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
        for (String p : Files.readString(f).split("\n\\s*\n")) {
          if (!p.isBlank()) {
            out.add(p.strip());
          }
        }
      }
    }
    return out;
  }

  static List<Path> javaFiles(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/java/")
          && !p.toString().contains("/target/")).sorted().toList();
    }
  }
}
