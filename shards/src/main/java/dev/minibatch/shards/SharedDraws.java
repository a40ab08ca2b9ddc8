package dev.minibatch.shards;

import dev.minibatch.runtime.internal.engine.EpochDraws;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The epoch order handed to the engine, which keeps a copy of the epoch it drew last until {@link
 * FileNeeds} takes it: both need the whole order of an epoch, and drawing it (a window shuffle over
 * every sample: about a second for 10^8 samples) once instead of twice halves the time to a large
 * set's first batch. A copy, because the engine owns its array. A reseeded order is the plain one:
 * FileNeeds, which draws from the order it was made with, then draws for itself, as without this.
 */
final class SharedDraws implements EpochDraws {
  private final EpochDraws order;
  private int epoch = -1;
  private int @Nullable [] kept;

  SharedDraws(EpochDraws order) {
    this.order = order;
  }

  /** The order itself. */
  EpochDraws unshared() {
    return order;
  }

  @Override
  public int length() {
    return order.length();
  }

  @Override
  public long seed() {
    return order.seed();
  }

  @Override
  public EpochDraws reseeded(long seed) {
    return order.reseeded(seed);
  }

  @Override
  public void fill(int e, int[] out) {
    order.fill(e, out);
    int[] copy = Arrays.copyOf(out, order.length());
    synchronized (this) {
      epoch = e;
      kept = copy;
    }
  }

  @Override
  public String describe() {
    return order.describe();
  }

  /** Epoch {@code e}'s order if it is the one drawn last and not taken yet (then dropped here), else null. */
  synchronized int @Nullable [] take(int e) {
    int[] k = kept;
    if (k == null || epoch != e) {
      return null;
    }
    kept = null;
    return k;
  }
}
