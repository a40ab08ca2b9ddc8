package dev.minibatch.runtime.pipeline;

import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which stage held the consumer back over one window of an epoch's stats, and which setting would
 * help: the table of docs/pipeline.md ("The live verdict"). A pure function of the window, so that
 * it is tested on hand-made counters. {@link LiveVerdict} logs it while a model trains, {@code
 * report.PipelineReport} judges each epoch and a whole run with it, and any stats can be judged
 * with {@link #of}.
 *
 * @param stage the limiting stage as the stats name it, with its threads ({@code computed[1]})
 * @param knob the setting that would help ({@code readers}, {@code readAhead}, {@code
 *     prefetchBuffer}, {@code cheaper-decode}): with the stage, what a repeated verdict is compared by
 * @param line the log line
 */
public record Verdict(String stage, String knob, String line) {
  /** The stage a shard set's provider reads its files ahead in (the shards module's name). */
  static final String READ_AHEAD = "shard-read-ahead";

  /**
   * Below this share of their cores' time on a CPU, reader threads are taken to wait (storage,
   * network): a waiting reader uses a few percent, a computing one most of a core, and still a
   * fifth of one on a machine loaded four deep.
   */
  static final double WAITING_CPU = 0.1;

  /** Reader threads blocked on a full ring this share of their time, while the consumer waited. */
  static final double BURSTY = 0.25;

  /**
   * The verdict on {@code window} (the stages of one provider's epochs over the interval, source
   * first, its own stage last), or empty when its consumer waited less than {@code threshold} of
   * the window's time.
   *
   * @param cpuNanos the CPU time the provider's worker threads used over the window, or -1 if unknown
   * @param cores the machine's processors
   */
  public static Optional<Verdict> of(String provider, PipelineStats window, double threshold, long cpuNanos,
      int cores) {
    List<StageStats> stages = window.stages();
    if (stages.isEmpty()) {
      return Optional.empty();
    }
    StageStats own = stages.get(stages.size() - 1);
    long wall = own.wallNanos();
    if (wall <= 0) {
      return Optional.empty();
    }
    double waited = Math.min(1, own.consumerWaitNanos() / (double) wall);
    if (waited < threshold) {
      return Optional.empty();
    }
    String head = String.format(Locale.ROOT, "%s: input-bound: the consumer waited for batches %.0f%% of the last %s",
        provider, 100 * waited, seconds(wall));
    // The most upstream stage its consumers waited on for a threshold's share of the window: what
    // is slow there delays every stage after it.
    for (int i = 0; i < stages.size() - 1; i++) {
      StageStats s = stages.get(i);
      if (s.consumerWaitNanos() / (double) wall >= threshold) {
        return Optional.of(upstream(head, s, wall, cpuNanos, cores));
      }
    }
    String stage = label(own);
    return Optional.of(new Verdict(stage, "readers", head + String.format(Locale.ROOT,
        "; the batches are made on the consumer's thread (%s, busy %.0f%%): set readers(n) (preprocessThreads(n) for"
            + " images) to make them on reader threads ahead of it", stage, 100 * Math.min(1, own.busyNanos()
            / (double) wall))));
  }

  private static Verdict upstream(String head, StageStats s, long wall, long cpuNanos, int cores) {
    String stage = label(s);
    int n = Math.max(1, s.workers());
    double busy = s.utilization();
    if (s.name().equals(READ_AHEAD)) {
      return new Verdict(stage, "readAhead", head + String.format(Locale.ROOT,
          "; limiting stage %s (batches waited for shard files %.0f%% of the time): raise readAhead(n) to read more"
              + " files ahead, or diskCache(directory, maxBytes) to keep fetched files on local storage", stage,
          100 * Math.min(1, s.consumerWaitNanos() / (double) wall)));
    }
    double blocked = s.blockedOutputNanos() / ((double) wall * n);
    if (blocked >= BURSTY) {
      return new Verdict(stage, "prefetchBuffer", head + String.format(Locale.ROOT,
          "; limiting stage %s (busy %.0f%%, blocked on a full ring %.0f%%: batches come unevenly): raise"
              + " prefetchBuffer(n) to hold more batches ahead", stage, 100 * busy, 100 * Math.min(1, blocked)));
    }
    if (n < cores) {
      return new Verdict(stage, "readers", head + String.format(Locale.ROOT,
          "; limiting stage %s (busy %.0f%%): raise readers(n) (preprocessThreads(n) for images) from %d towards %d,"
              + " the machine's cores", stage, 100 * busy, n, cores));
    }
    double cpu = cpuNanos < 0 ? -1 : cpuNanos / ((double) wall * Math.min(n, cores));
    if (cpu >= 0 && cpu < WAITING_CPU) {
      return new Verdict(stage, "readers", head + String.format(Locale.ROOT,
          "; limiting stage %s (busy %.0f%%, but its threads used %.0f%% of %d cores: they wait, e.g. on"
              + " storage): raise readers(n) above %d to keep more reads in flight, or move the files to faster"
              + " storage", stage, 100 * busy, 100 * cpu, Math.min(n, cores), n));
    }
    return new Verdict(stage, "cheaper-decode", head + String.format(Locale.ROOT,
        "; limiting stage %s (busy %.0f%%%s on all %d cores): more readers cannot help; make the decoding and"
            + " augmentation cheaper, or decode once and save the result (a shard set)", stage, 100 * busy,
        cpu < 0 ? "" : String.format(Locale.ROOT, ", threads' CPU %.0f%%", 100 * Math.min(1, cpu)), cores));
  }

  /** The stage as the stats name it: {@code name[workers]}. */
  private static String label(StageStats s) {
    return s.name() + "[" + s.workers() + "]";
  }

  private static String seconds(long nanos) {
    double s = nanos / 1e9;
    return s >= 10 ? String.format(Locale.ROOT, "%.0f s", s) : String.format(Locale.ROOT, "%.1f s", s);
  }
}
