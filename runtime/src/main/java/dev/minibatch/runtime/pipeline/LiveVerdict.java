package dev.minibatch.runtime.pipeline;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The live "input-bound" verdict of every provider epoch in this JVM: while a consumer iterates,
 * each provider checks, once per {@code interval}, whether the consumer waited for batches more than
 * {@code threshold} of that interval; if so it logs one {@code WARNING} line, through {@link
 * System.Logger} named {@link #LOGGER}, that names the stage that limits and the setting that would
 * help (see docs/pipeline.md, "The live verdict"). When the model is the bottleneck it says
 * nothing.
 *
 * <pre>{@code
 * LiveVerdict.set(new LiveVerdict(0.1, Duration.ofSeconds(10))); // more eager than the default
 * LiveVerdict.off();                                              // no verdicts at all
 * }</pre>
 *
 * <p>On by default with {@link #DEFAULT}. A verdict is logged again only when it changes (another
 * stage or setting) or after {@link #REPEAT} with the same one, so a long input-bound run logs a
 * few lines, not one per interval. The setting is JVM-wide, like the logging it feeds, and is read
 * by each provider when its interval ends and when an epoch starts.
 *
 * @param threshold the share of an interval the consumer may wait for batches without a verdict,
 *     in (0, 1)
 * @param interval how often each provider judges, over the time its epochs ran since the last
 *     verdict
 */
public record LiveVerdict(double threshold, Duration interval) {
  /**
   * 20 % over 30 s: a model that waits a fifth of its time loses enough to be worth a line, while
   * the few batches at an epoch's start (threads starting, the first files read) stay below it in a
   * 30 s window; 30 s also keeps the cost at one stats snapshot per provider per half minute.
   */
  public static final LiveVerdict DEFAULT = new LiveVerdict(0.2, Duration.ofSeconds(30));

  /** The same verdict of one provider is logged at most once per 10 minutes. */
  public static final Duration REPEAT = Duration.ofMinutes(10);

  /** The name of the {@link System.Logger} the verdicts are logged to. */
  public static final String LOGGER = "dev.minibatch.runtime.pipeline.LiveVerdict";

  private static volatile @Nullable LiveVerdict current = DEFAULT;

  /**
   * Checks the values.
   *
   * @throws IllegalArgumentException if {@code threshold} is not in (0, 1) or {@code interval} is
   *     not positive
   */
  public LiveVerdict {
    Objects.requireNonNull(interval, "interval");
    if (!(threshold > 0 && threshold < 1)) {
      throw new IllegalArgumentException("threshold must be in (0, 1), got " + threshold);
    }
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be positive, got " + interval);
    }
  }

  /** Judges with {@code verdict} from now on, in every provider of this JVM. */
  public static void set(LiveVerdict verdict) {
    current = Objects.requireNonNull(verdict, "verdict");
  }

  /** No verdicts from now on; {@link #set} turns them on again. */
  public static void off() {
    current = null;
  }

  /** The settings in use, or empty when off. */
  public static Optional<LiveVerdict> current() {
    return Optional.ofNullable(current);
  }
}
