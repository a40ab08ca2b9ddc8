package dev.minibatch.samples.text;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.samples.SameDiffGradients;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.text.Documents;
import dev.minibatch.text.PackedBatch;
import dev.minibatch.text.PackedBatches;
import dev.minibatch.text.PackedRow;
import dev.minibatch.text.Packing;
import dev.minibatch.text.TokenShards;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.TrainingConfig;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;

/**
 * Trains {@link PackedLm}, a small transformer, on packed rows of a real corpus: three of
 * Shakespeare's sonnets (public domain, {@code text/three-sonnets.txt}), one document per line,
 * tokenised with {@code cl100k_base} into a token shard set, packed best fit into rows of {@code L}
 * tokens with the end-of-text separator, and dealt in batches of {@code R} rows by {@link
 * PackedBatches}. The model attends within a document only (the segment ids), reads the position
 * ids that restart at each document, and counts the loss where the loss mask is 1 and a next token
 * exists, so padding teaches it nothing. Prints, per epoch, the mean cross-entropy per counted token
 * over the whole corpus and the share of the positions that held real tokens.
 *
 * <p>{@code mvn -B -ntp -pl samples -am -DskipTests package exec:exec
 * -Dmain.class=dev.minibatch.samples.text.TrainPackedLm -Dmain.args="--epochs 30"}; options:
 * {@code --epochs N --length L --rows R --unit N --width N --seed N}.
 */
public final class TrainPackedLm {
  /** The end-of-text token of {@code cl100k_base}: every line's separator. */
  public static final int SEPARATOR = 100_257;
  /** The corpus, on the class path. */
  public static final String CORPUS = "/text/three-sonnets.txt";

  /**
   * The settings of a run.
   *
   * @param epochs passes over the corpus
   * @param length the context length {@code L}
   * @param rows rows per batch {@code R}
   * @param unit lines per unit: the documents' provider's batch, packed on its own
   * @param width the model's width
   * @param seed the shuffle's and the weights' seed
   */
  public record Options(int epochs, int length, int rows, int unit, int width, long seed) {
    /** 30 epochs, rows of 32 tokens, 4 rows a batch, units of 11 lines, width 48, seed 7. */
    public static Options defaults() {
      return new Options(30, 32, 4, 11, 48, 7);
    }
  }

  /**
   * One epoch's figures.
   *
   * @param epoch the epoch, from 1
   * @param loss the mean cross-entropy per counted token over the corpus, after the epoch, in nats
   * @param realTokens the real tokens of the epoch's rows
   * @param positions the positions of the epoch's rows, padding included
   */
  public record EpochReport(int epoch, double loss, long realTokens, long positions) {}

  private TrainPackedLm() {}

  public static void main(String[] args) throws IOException {
    Options o = parse(args);
    Path dir = Files.createTempDirectory("packed-lm");
    try {
      String set = tokenize(dir);
      train(set, o, r -> System.out.println(r.epoch() == 0
          ? String.format(Locale.ROOT, "untrained: loss %.3f nats per token", r.loss())
          : String.format(Locale.ROOT, "epoch %d: loss %.3f nats per token, %.1f %% of the positions real (%d of %d)",
              r.epoch(), r.loss(), 100.0 * r.realTokens() / r.positions(), r.realTokens(), r.positions())));
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(f);
        }
      }
    }
  }

  /** The corpus's text. */
  public static String corpus() {
    try (InputStream in = TrainPackedLm.class.getResourceAsStream(CORPUS)) {
      return new String(Objects.requireNonNull(in, CORPUS).readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the corpus to {@code dir} and tokenises it, a document per line, into {@code dir}/tokens. */
  public static String tokenize(Path dir) throws IOException {
    Path text = Files.writeString(dir.resolve("three-sonnets.txt"), corpus());
    String set = dir.resolve("tokens").toString();
    TokenShards.builder().build().write(Documents.lines(text), set);
    return set;
  }

  /** Best fit of whole lines into rows of {@code L}, each line ending with the separator, with labels. */
  public static Packing packing(Options o) {
    return Packing.builder(o.length()).bestFit(4).overlong(Packing.Overlong.SPLIT).separator(SEPARATOR)
        .shiftLabels(true).build();
  }

  /** The ids of the token set, and the separator. */
  public static CompactIds ids(String set) {
    BitSet used = new BitSet();
    used.set(SEPARATOR);
    try (ShardProvider p = ShardProvider.builder(set).batchSize(64).build();
        BatchIterator<NamedBatch> it = p.iterator()) {
      while (it.hasNext()) {
        NamedBatch b = it.next();
        int[][] ids = b.get(TokenShards.TOKENS).toIntMatrix();
        int[] lengths = b.lengths(TokenShards.TOKENS).toIntVector();
        for (int r = 0; r < b.countSamples(); r++) {
          for (int i = 0; i < lengths[r]; i++) {
            used.set(ids[r][i]);
          }
        }
      }
    }
    return CompactIds.of(used);
  }

  /**
   * Trains a new model; returns a report per epoch (also given to {@code progress}), the first one
   * the untrained model's (epoch 0, no rows).
   */
  public static List<EpochReport> train(String set, Options o, Consumer<EpochReport> progress) {
    CompactIds ids = ids(set);
    Packing packing = packing(o);
    Nd4j.getRandom().setSeed(o.seed());
    SameDiff sd = PackedLm.build(ids.size(), o.length(), o.width());
    sd.setTrainingConfig(TrainingConfig.builder().updater(new Adam(5e-3))
        .dataSetFeatureMapping("ids", "positions", "attention").dataSetLabelMapping("next", "weight").build());
    SameDiffGradients.createQuietly(sd);
    List<MultiDataSet> all = everyRow(set, packing, o, ids);
    List<EpochReport> reports = new ArrayList<>();
    EpochReport untrained = new EpochReport(0, loss(sd, all), 0, 0);
    reports.add(untrained);
    progress.accept(untrained);
    try (ShardProvider lines = ShardProvider.builder(set).batchSize(o.unit()).shuffle(true).seed(o.seed()).build()) {
      PackedBatches batches = packing.batches(lines, o.rows(), 1, 0);
      for (int epoch = 1; epoch <= o.epochs(); epoch++) {
        long real = 0;
        long positions = 0;
        for (PackedBatch b : batches) {
          for (PackedRow row : b.rows()) {
            real += row.realTokens();
            positions += row.length();
          }
          sd.fit(inputs(b, ids));
        }
        EpochReport r = new EpochReport(epoch, loss(sd, all), real, positions);
        reports.add(r);
        progress.accept(r);
      }
    }
    return reports;
  }

  /** The batches of the corpus's lines in file order, packed alike: what the loss is measured on. */
  static List<MultiDataSet> everyRow(String set, Packing packing, Options o, CompactIds ids) {
    List<MultiDataSet> all = new ArrayList<>();
    try (ShardProvider lines = ShardProvider.builder(set).batchSize(o.unit()).build()) {
      for (PackedBatch b : packing.batches(lines, o.rows(), 1, 0)) {
        all.add(inputs(b, ids));
      }
    }
    return all;
  }

  /** The mean cross-entropy per counted token over {@code data}, in nats. */
  public static double loss(SameDiff sd, List<MultiDataSet> data) {
    double sum = 0;
    double counted = 0;
    for (MultiDataSet d : data) {
      INDArray[] f = d.getFeatures();
      INDArray[] l = d.getLabels();
      double loss = sd.batchOutput().input("ids", f[0]).input("positions", f[1]).input("attention", f[2])
          .input("next", l[0]).input("weight", l[1]).output(PackedLm.LOSS).outputSingle().getDouble(0);
      double n = l[1].sumNumber().doubleValue();
      sum += loss * n;
      counted += n;
    }
    return sum / counted;
  }

  /**
   * The model's inputs for a batch: the ids in the compact numbering, the position ids, the
   * attention bias from the segment ids, the next tokens, and the weight: the loss mask where a
   * next token exists, so neither padding nor a line's last token counts.
   */
  static MultiDataSet inputs(PackedBatch b, CompactIds ids) {
    List<PackedRow> rows = b.rows();
    int n = rows.size();
    int length = rows.get(0).length();
    int[][] tokens = new int[n][length];
    int[][] positions = new int[n][];
    int[][] segments = new int[n][];
    int[][] next = new int[n][length];
    float[][] weight = new float[n][length];
    for (int r = 0; r < n; r++) {
      PackedRow row = rows.get(r);
      int[] mask = row.lossMask();
      int[] labels = row.labels();
      for (int i = 0; i < length; i++) {
        boolean real = mask[i] == 1;
        tokens[r][i] = real ? ids.compact(row.ids()[i]) : 0;
        boolean counted = real && labels[i] != Packing.IGNORE;
        next[r][i] = counted ? ids.compact(labels[i]) : 0;
        weight[r][i] = counted ? 1f : 0f;
      }
      positions[r] = row.positionIds();
      segments[r] = row.segmentIds();
    }
    INDArray[] features = {Nd4j.createFromArray(tokens), Nd4j.createFromArray(positions),
        Nd4j.createFromArray(PackedLm.attention(segments))};
    INDArray[] labels = {Nd4j.createFromArray(next), Nd4j.createFromArray(weight)};
    return new MultiDataSet(features, labels);
  }

  static Options parse(String[] args) {
    Options d = Options.defaults();
    int epochs = d.epochs();
    int length = d.length();
    int rows = d.rows();
    int unit = d.unit();
    int width = d.width();
    long seed = d.seed();
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--epochs" -> epochs = Integer.parseInt(value);
        case "--length" -> length = Integer.parseInt(value);
        case "--rows" -> rows = Integer.parseInt(value);
        case "--unit" -> unit = Integer.parseInt(value);
        case "--width" -> width = Integer.parseInt(value);
        case "--seed" -> seed = Long.parseLong(value);
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; options: --epochs N --length L --rows R --unit N --width N --seed N");
      }
      i++;
    }
    return new Options(epochs, length, rows, unit, width, seed);
  }
}
