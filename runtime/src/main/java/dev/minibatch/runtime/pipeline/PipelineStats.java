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

  /** Stats of the given stages, source first. */
  public PipelineStats(List<StageStats> stages) {
    this(stages, PaddingStats.NONE);
  }

  /** Stats of the given stages, source first, and the padding of the batches delivered. */
  public PipelineStats(List<StageStats> stages, PaddingStats padding) {
    this.stages = Collections.unmodifiableList(new ArrayList<>(stages));
    this.padding = padding;
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
    return new PipelineStats(stages, padding);
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
    return new PipelineStats(all, later.padding.realSteps() > 0 ? later.padding : padding);
  }

  /** This pipeline's stages followed by {@code last}. */
  public PipelineStats plus(StageStats last) {
    List<StageStats> all = new ArrayList<>(stages);
    all.add(last);
    return new PipelineStats(all, padding);
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
    if (padding.realSteps() > 0) {
      sb.append(String.format(Locale.ROOT, " | padding %.3f (%d padded / %d real steps)", padding.ratio(),
          padding.paddedSteps(), padding.realSteps()));
    }
    return sb.append(" | bottleneck: ").append(bottleneck()).toString();
  }

  @Override
  public String toString() {
    return summary();
  }
}
