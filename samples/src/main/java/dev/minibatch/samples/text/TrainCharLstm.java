package dev.minibatch.samples.text;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.interop.ProviderIterators;
import dev.minibatch.runtime.interop.SameDiffBinding;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.PaddingStats;
import dev.minibatch.samples.SameDiffGradients;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.TrainingConfig;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;

/**
 * Trains {@link CharLstm} on the lines of the project's LICENSE, one variable-length line per
 * sample, bucketed by length so a batch pads little. Prints, per epoch, the mean cross-entropy per
 * real character over every line, and the epoch's padding ratio (padded steps / real steps).
 *
 * <p>{@code mvn -B -ntp -pl samples -am -DskipTests package exec:exec
 * -Dmain.class=dev.minibatch.samples.text.TrainCharLstm -Dmain.args="--epochs 10"}; options:
 * {@code --epochs N --batch N --hidden N --seed N --buckets 16,32,48,64,80,96} ({@code --buckets
 * none} pads every batch to its longest line).
 */
public final class TrainCharLstm {
  /**
   * One epoch's figures.
   *
   * @param epoch the epoch, from 1
   * @param loss the mean cross-entropy per real character over every line, after the epoch
   * @param padding the padding of the epoch's training batches
   */
  public record EpochReport(int epoch, double loss, PaddingStats padding) {}

  /** The settings of a run. */
  public record Options(int epochs, int batchSize, int hidden, long seed, int[] buckets) {
    /** 10 epochs of 16 lines, 96 units, seed 7, buckets 16, 32, ..., 96. */
    public static Options defaults() {
      return new Options(10, 16, 96, 7, new int[] {16, 32, 48, 64, 80, CharLine.MAX_LENGTH});
    }
  }

  private TrainCharLstm() {}

  public static void main(String[] args) {
    Options o = parse(args);
    Vocabulary vocabulary = Vocabulary.of(CharLines.license());
    List<CharLine> lines = CharLines.lines(CharLines.license(), vocabulary);
    System.out.printf(Locale.ROOT, "%d lines, %d characters in the vocabulary%n", lines.size(), vocabulary.size());
    train(lines, vocabulary.size(), o, r -> System.out.printf(Locale.ROOT,
        "epoch %d: loss %.3f per character, padding %.3f (%d padded / %d real steps)%n", r.epoch(), r.loss(),
        r.padding().ratio(), r.padding().paddedSteps(), r.padding().realSteps()));
  }

  /** The training provider: shuffled lines, bucketed unless {@code buckets} is empty. */
  public static CharLineProvider provider(List<CharLine> lines, Options o) {
    CharLineProvider.Builder b = CharLineProvider.builder().samples(lines).batchSize(o.batchSize()).shuffle(true)
        .seed(o.seed()).lastBatch(LastBatch.PARTIAL);
    if (o.buckets().length > 0) {
      b.buckets(o.buckets());
    }
    return b.build();
  }

  /** Trains a new model; returns a report per epoch (also given to {@code progress}). */
  public static List<EpochReport> train(List<CharLine> lines, int vocabulary, Options o,
      java.util.function.Consumer<EpochReport> progress) {
    Nd4j.getRandom().setSeed(o.seed());
    SameDiff sd = CharLstm.build(vocabulary, o.hidden());
    List<EpochReport> reports = new ArrayList<>();
    try (CharLineProvider train = provider(lines, o);
        CharLineProvider all = CharLineProvider.builder().samples(lines).batchSize(64).build()) {
      sd.setTrainingConfig(SameDiffBinding.bind(TrainingConfig.builder().updater(new Adam(1e-2)), train, sd).build());
      SameDiffGradients.createQuietly(sd);
      for (int epoch = 1; epoch <= o.epochs(); epoch++) {
        PaddingStats padding = padding(train, epoch);
        sd.fit(ProviderIterators.multiDataSet(train), 1);
        EpochReport r = new EpochReport(epoch, loss(sd, all), padding);
        reports.add(r);
        progress.accept(r);
      }
    }
    return reports;
  }

  /**
   * The padding of the training provider's epoch {@code epoch}, read from the stats of a pass over
   * it that restores its state after (so training then sees the same epoch).
   */
  static PaddingStats padding(CharLineProvider train, int epoch) {
    var state = train.saveState();
    try (BatchIterator<CharLineBatch> it = train.iterator()) {
      while (it.hasNext()) {
        it.next();
      }
      return PipelineStats.of(it).padding();
    } finally {
      train.restoreState(state);
    }
  }

  /** The mean cross-entropy per real character over every line. */
  public static double loss(SameDiff sd, CharLineProvider all) {
    double sum = 0;
    long steps = 0;
    try (BatchIterator<CharLineBatch> it = all.iterator()) {
      while (it.hasNext()) {
        CharLineBatch b = it.next();
        double loss = sd.batchOutput().input("chars", b.getChars()).input("next", b.getNext())
            .input(SameDiffBinding.maskName("next"), b.getNextMask()).output(CharLstm.LOSS).outputSingle().getDouble(0);
        long real = b.getNextLengths().sumNumber().longValue();
        sum += loss * real;
        steps += real;
      }
    }
    return sum / steps;
  }

  static Options parse(String[] args) {
    Options d = Options.defaults();
    int epochs = d.epochs();
    int batch = d.batchSize();
    int hidden = d.hidden();
    long seed = d.seed();
    int[] buckets = d.buckets();
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--epochs" -> epochs = Integer.parseInt(value);
        case "--batch" -> batch = Integer.parseInt(value);
        case "--hidden" -> hidden = Integer.parseInt(value);
        case "--seed" -> seed = Long.parseLong(value);
        case "--buckets" -> buckets = value.equals("none") ? new int[0]
            : java.util.Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; options: --epochs N --batch N --hidden N --seed N --buckets B1,B2,...|none");
      }
      i++;
    }
    return new Options(epochs, batch, hidden, seed, buckets);
  }
}
