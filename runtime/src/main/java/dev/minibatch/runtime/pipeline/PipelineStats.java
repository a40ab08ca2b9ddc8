package dev.minibatch.runtime.pipeline;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The counters of the threaded stages of one pipeline pass, source first, and a verdict on which
 * part limits the throughput.
 */
public final class PipelineStats {
  /** No threaded stages. */
  public static final PipelineStats EMPTY = new PipelineStats(List.of());

  private final List<StageStats> stages;
  private final PaddingStats padding;
  private final List<BadSample> badSamples;
  private final List<Tuning> tuning;

  /** Stats of the given stages, source first. */
  public PipelineStats(List<StageStats> stages) {
    this(stages, PaddingStats.NONE);
  }

  /** Stats of the given stages, source first, and the padding of the batches delivered. */
  public PipelineStats(List<StageStats> stages, PaddingStats padding) {
    this(stages, padding, List.of(), List.of());
  }

  private PipelineStats(List<StageStats> stages, PaddingStats padding, List<BadSample> badSamples,
      List<Tuning> tuning) {
    this.stages = Collections.unmodifiableList(new ArrayList<>(stages));
    this.padding = padding;
    this.badSamples = List.copyOf(badSamples);
    this.tuning = List.copyOf(tuning);
  }

  /**
   * What autotuning chose for the stages it tunes ({@link dev.minibatch.runtime.Settings.Autotune}),
   * source first; empty when nothing is autotuned.
   */
  public List<Tuning> tuning() {
    return tuning;
  }

  /** These stats with {@code tuning}. */
  public PipelineStats withTuning(List<Tuning> tuning) {
    return new PipelineStats(stages, padding, badSamples, tuning);
  }

  /**
   * The samples that could not be read and were skipped or replaced in the batches delivered so
   * far ({@link dev.minibatch.runtime.ProviderBuilder.BadSamples}), in batch order; empty when
   * there were none.
   */
  public List<BadSample> badSamples() {
    return badSamples;
  }

  /** These stats with {@code badSamples}. */
  public PipelineStats withBadSamples(List<BadSample> badSamples) {
    return new PipelineStats(stages, padding, badSamples, tuning);
  }

  /**
   * The padding of the variable-length members of the batches delivered so far ({@link
   * PaddingStats#NONE} for providers without them).
   */
  public PaddingStats padding() {
    return padding;
  }

  /** These stats with {@code padding}. */
  public PipelineStats withPadding(PaddingStats padding) {
    return new PipelineStats(stages, padding, badSamples, tuning);
  }

  /**
   * The stats of {@code it} if it keeps any (a {@link PipelineIterator}: every reader pass, and every
   * epoch of a provider built on the runtime's engine, {@code provider.iterator()}), else {@link
   * #EMPTY}.
   */
  public static PipelineStats of(java.util.Iterator<?> it) {
    return it instanceof PipelineIterator<?> p ? p.stats() : EMPTY;
  }

  /** The stages, source first. */
  public List<StageStats> stages() {
    return stages;
  }

  /** The stats of the stage called {@code name}, if any. */
  public java.util.Optional<StageStats> stage(String name) {
    return stages.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** This pipeline's stages followed by {@code later}'s. */
  public PipelineStats plus(PipelineStats later) {
    if (later.stages.isEmpty()) {
      return this;
    }
    if (stages.isEmpty()) {
      return later;
    }
    List<StageStats> all = new ArrayList<>(stages);
    all.addAll(later.stages);
    List<Tuning> tuned = new ArrayList<>(tuning);
    tuned.addAll(later.tuning);
    return new PipelineStats(all, later.padding.realSteps() > 0 ? later.padding : padding,
        later.badSamples.isEmpty() ? badSamples : later.badSamples, tuned);
  }

  /** This pipeline's stages followed by {@code last}. */
  public PipelineStats plus(StageStats last) {
    List<StageStats> all = new ArrayList<>(stages);
    all.add(last);
    return new PipelineStats(all, padding, badSamples, tuning);
  }

  /**
   * The part that limits throughput: the name of the busiest stage (highest {@link
   * StageStats#utilization()}), or {@code "consumer"} when the consumer of the last stage is busier
   * than every stage (the model, not loading, is the bottleneck). Empty string without stages.
   */
  public String bottleneck() {
    if (stages.isEmpty()) {
      return "";
    }
    StageStats last = stages.get(stages.size() - 1);
    double consumerBusy = 1 - last.consumerWaitShare();
    String best = "consumer";
    double bestShare = consumerBusy;
    for (StageStats s : stages) {
      if (s.utilization() > bestShare) {
        bestShare = s.utilization();
        best = s.name();
      }
    }
    return best;
  }

  /**
   * One line: each stage's counters, the consumer's share of time spent waiting, and the
   * bottleneck.
   */
  public String summary() {
    if (stages.isEmpty()) {
      return "no threaded stages";
    }
    StringBuilder sb = new StringBuilder();
    for (StageStats s : stages) {
      sb.append(s).append(" | ");
    }
    StageStats last = stages.get(stages.size() - 1);
    sb.append(String.format(Locale.ROOT, "consumer waited %.0f%%", 100 * last.consumerWaitShare()));
    if (!badSamples.isEmpty()) {
      sb.append(" | bad samples ").append(badSamples.size());
    }
    if (padding.realSteps() > 0) {
      sb.append(String.format(Locale.ROOT, " | padding %.3f (%d padded / %d real steps)", padding.ratio(),
          padding.paddedSteps(), padding.realSteps()));
    }
    for (Tuning t : tuning) {
      sb.append(" | ").append(t);
    }
    return sb.append(" | bottleneck: ").append(bottleneck()).toString();
  }

  @Override
  public String toString() {
    return summary();
  }

  /**
   * What autotuning chose for one stage's reader threads ({@link
   * dev.minibatch.runtime.Settings.Autotune}).
   *
   * @param stage the stage's name, as in {@link #stages()}
   * @param readers the reader threads that write now
   * @param prefetchBuffer how many batches they may write ahead of the one the consumer waits for
   * @param settled whether the tuner has stopped trying changes
   * @param trials the changes it tried so far
   * @param bufferBytes the bytes of the ring of batch buffers it allocated
   * @param cpus the budget's most reader threads
   * @param memoryBytes the budget's most bytes of batch buffers
   */
  public record Tuning(String stage, int readers, int prefetchBuffer, boolean settled, int trials, long bufferBytes,
      int cpus, long memoryBytes) {
    /** For example {@code image autotuned: readers 2, prefetchBuffer 3 (settled after 3 trials; 12.0 MiB of 256.0 MiB)}. */
    @Override
    public String toString() {
      return stage + " autotuned: readers " + readers + ", prefetchBuffer " + prefetchBuffer + " (" + (settled ? "settled"
          : "tuning") + " after " + trials + " trials; " + size(bufferBytes) + " of " + size(memoryBytes) + ")";
    }

    private static String size(long bytes) {
      return bytes < 1 << 20 ? String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0)
          : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }
  }

  /**
   * A snapshot of one threaded stage's counters. Times are sums over the stage's worker threads, in
   * nanoseconds, from the stage's start to the snapshot (or to the stage's end).
   *
   * @param name the stage's name
   * @param workers the number of worker threads
   * @param items items the stage handed to its consumer's queue
   * @param busyNanos time the workers spent doing the stage's work (for a producer, running its
   *     body or pulling from its sequential upstream; for a map, mapping)
   * @param waitInputNanos time the workers spent waiting for input (a map pulling from its source)
   * @param blockedOutputNanos time the workers spent blocked because the output queue was full
   * @param consumerWaitNanos time the stage's consumer spent waiting for an item
   * @param wallNanos time since the stage started, or its lifetime if it has ended
   * @param queueDepth items in the output queue at the snapshot
   * @param queueCapacity the output queue's capacity in items ({@link Integer#MAX_VALUE} when
   *     unbounded)
   * @param bytes bytes the stage read from outside the process, for a stage that reads storage (a
   *     shard set's read-ahead counts the bytes of shard files read from their file system, not
   *     those served by the disk cache); 0 for the others
   */
  public record StageStats(
      String name,
      int workers,
      long items,
      long busyNanos,
      long waitInputNanos,
      long blockedOutputNanos,
      long consumerWaitNanos,
      long wallNanos,
      int queueDepth,
      int queueCapacity,
      long bytes) {

    /** A stage that reads no storage: {@code bytes} 0. */
    public StageStats(String name, int workers, long items, long busyNanos, long waitInputNanos,
        long blockedOutputNanos, long consumerWaitNanos, long wallNanos, int queueDepth, int queueCapacity) {
      this(name, workers, items, busyNanos, waitInputNanos, blockedOutputNanos, consumerWaitNanos, wallNanos, queueDepth,
          queueCapacity, 0);
    }

    /** The share of the workers' time spent busy: {@code busy / (wall * workers)}, in [0, 1]. */
    public double utilization() {
      return wallNanos <= 0 || workers == 0 ? 0 : Math.min(1.0, busyNanos / ((double) wallNanos * workers));
    }

    /** The share of the consumer's time spent waiting on this stage, in [0, 1]. */
    public double consumerWaitShare() {
      return wallNanos <= 0 ? 0 : Math.min(1.0, consumerWaitNanos / (double) wallNanos);
    }

    /**
     * One line, e.g. {@code xmap[2]: 1000 items, busy 97%, input 1%, blocked 0%, queue 3/66}, and
     * for a stage that read storage its bytes ({@code …, queue 1/3, 47649332 bytes read}).
     */
    @Override
    public String toString() {
      double denom = Math.max(1, wallNanos) * (double) Math.max(1, workers);
      return String.format(Locale.ROOT, "%s[%d]: %d items, busy %.0f%%, input %.0f%%, blocked %.0f%%, queue %d/%s%s",
          name, workers, items, 100 * utilization(), 100 * waitInputNanos / denom,
          100 * blockedOutputNanos / denom, queueDepth,
          queueCapacity == Integer.MAX_VALUE ? "unbounded" : Integer.toString(queueCapacity),
          bytes > 0 ? ", " + bytes + " bytes read" : "");
    }
  }

  /**
   * How much of an epoch's variable-length data is padding: the steps of the samples' variable axes
   * that hold data, and those padded to the batch's length (summed over length groups; rows that
   * pad a batch are not counted, their count is the batches' {@code pad()}).
   *
   * @param realSteps the steps that hold data
   * @param paddedSteps the steps that hold padding
   */
  public record PaddingStats(long realSteps, long paddedSteps) {
    /** No variable-length members. */
    public static final PaddingStats NONE = new PaddingStats(0, 0);

    /** Padded steps per real step (0 without real steps): what bucketing brings down. */
    public double ratio() {
      return realSteps == 0 ? 0 : paddedSteps / (double) realSteps;
    }
  }

  /**
   * A sample that could not be read and was skipped or replaced ({@link
   * dev.minibatch.runtime.ProviderBuilder.BadSamples}).
   *
   * @param epoch the epoch it was met in
   * @param sample its index in the source
   * @param replacement the index of the sample written in its row instead, or -1 if it was skipped
   * @param cause why it could not be read (for the file providers, a {@code FileFormatException}
   *     naming the file and the record or line)
   */
  public record BadSample(int epoch, long sample, long replacement, RuntimeException cause) {
    /** Whether another sample took its row. */
    public boolean replaced() {
      return replacement >= 0;
    }

    /** E.g. {@code epoch 0, sample 17 skipped: train.rec: record 17 at byte 40960: ...}. */
    @Override
    public String toString() {
      return "epoch " + epoch + ", sample " + sample + (replaced() ? " replaced by sample " + replacement : " skipped")
          + ": " + cause.getMessage();
    }
  }

  /**
   * An epoch met more bad samples than its {@link dev.minibatch.runtime.ProviderBuilder.BadSamples}
   * budget allows:
   * thrown by the iterator in place of the batch that went over it. The message names the policy,
   * the budget and the first bad samples; {@link #badSamples()} lists them all, the last one the
   * sample that went over.
   */
  public static final class BadSampleBudgetException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final int LISTED = 5;

    private final transient List<BadSample> badSamples;

    /**
     * An exception for epoch {@code epoch} of a provider with policy {@code policy} (e.g. {@code
     * "skip(3)"}) and a budget of {@code budget} samples, having met {@code badSamples}.
     */
    public BadSampleBudgetException(int epoch, String policy, int budget, List<BadSample> badSamples) {
      super(message(epoch, policy, budget, badSamples), badSamples.isEmpty() ? null
          : badSamples.get(badSamples.size() - 1).cause());
      this.badSamples = List.copyOf(badSamples);
    }

    private static String message(int epoch, String policy, int budget, List<BadSample> bad) {
      StringBuilder s = new StringBuilder("epoch ").append(epoch).append(": ").append(bad.size())
          .append(" bad samples, over the budget of ").append(budget).append(" (badSamples(BadSamples.").append(policy)
          .append(")); raise the budget or fix the data. ");
      for (int k = 0; k < Math.min(LISTED, bad.size()); k++) {
        BadSample b = bad.get(k);
        s.append(k == 0 ? "" : "; ").append("sample ").append(b.sample()).append(": ").append(b.cause().getMessage());
      }
      if (bad.size() > LISTED) {
        s.append("; and ").append(bad.size() - LISTED).append(" more");
      }
      return s.toString();
    }

    /** Every bad sample the epoch met up to the one that went over the budget, in batch order. */
    public List<BadSample> badSamples() {
      return badSamples;
    }
  }
}
