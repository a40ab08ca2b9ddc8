package dev.minibatch.runtime.internal.settings;

import java.util.Locale;

/**
 * The resolved bad-sample policy of a provider (what {@code BadSamples} sets): what to do with a
 * sample that cannot be read, and the budget of such samples per epoch.
 *
 * @param action fail, skip or replace
 * @param maxCount the budget in samples, when {@code maxFraction < 0}
 * @param maxFraction the budget as a fraction of the epoch's samples, or -1
 */
public record BadSamplePolicy(Action action, int maxCount, double maxFraction) {
  /** Fail at the first bad sample: the default. */
  public static final BadSamplePolicy FAIL = new BadSamplePolicy(Action.FAIL, 0, -1);

  /** What happens to a bad sample. */
  public enum Action {
    /** The epoch fails. */
    FAIL,
    /** The sample's row is left out of its batch. */
    SKIP,
    /** The sample's row holds the next sample of the source that reads. */
    REPLACE
  }

  /** A budget of {@code max} samples per epoch. */
  public static BadSamplePolicy count(Action action, int max) {
    if (max < 0) {
      throw new IllegalArgumentException("the bad-sample budget must be >= 0, got " + max);
    }
    return new BadSamplePolicy(action, max, -1);
  }

  /** A budget of {@code floor(fraction * samples)} per epoch. */
  public static BadSamplePolicy fraction(Action action, double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException("the bad-sample fraction must be in [0, 1], got " + fraction);
    }
    return new BadSamplePolicy(action, 0, fraction);
  }

  /** The most bad samples an epoch that visits {@code samples} samples may meet. */
  public int budget(int samples) {
    return maxFraction < 0 ? maxCount : (int) Math.floor(maxFraction * samples);
  }

  /** The factory call that makes this policy, e.g. {@code skip(10)} or {@code replaceFraction(0.001)}. */
  @Override
  public String toString() {
    String name = action.name().toLowerCase(Locale.ROOT);
    if (action == Action.FAIL) {
      return name + "()";
    }
    return maxFraction < 0 ? name + "(" + maxCount + ")" : name + "Fraction(" + maxFraction + ")";
  }
}
