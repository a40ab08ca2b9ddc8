package dev.minibatch.shards;

import dev.minibatch.runtime.spi.EpochDraws;
import org.jspecify.annotations.Nullable;

/**
 * The epoch order handed to the engine, which keeps the epoch it drew last until {@link FileNeeds}
 * takes it: both need the whole order of an epoch, and drawing it (a window shuffle over every
 * sample: about a second for 10^8 samples) once instead of twice halves the time to a large set's
 * first batch. The array is shared, not copied: the engine and FileNeeds only read it once it is
 * filled. A reseeded order (a state restored with its own seed) is shared the same way, and {@link
 * #current()} follows it, so FileNeeds plans the files of the order the engine reads, not of the
 * one it was made with.
 */
final class SharedDraws implements EpochDraws {
  /** What every order reseeded from one shares: the latest order and the epoch drawn last. */
  private static final class Latest {
    private volatile EpochDraws order;
    private int epoch = -1;
    private int @Nullable [] kept;

    Latest(EpochDraws order) {
      this.order = order;
    }
  }

  private final EpochDraws order;
  private final Latest latest;

  SharedDraws(EpochDraws order) {
    this(order, new Latest(order));
  }

  private SharedDraws(EpochDraws order, Latest latest) {
    this.order = order;
    this.latest = latest;
  }

  /** The order the engine reads now: this one, or the one it was last reseeded to. */
  EpochDraws current() {
    return latest.order;
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
    EpochDraws other = order.reseeded(seed);
    if (other == order) {
      return this;
    }
    synchronized (latest) {
      latest.order = other;
      latest.kept = null;
    }
    return new SharedDraws(other, latest);
  }

  @Override
  public void fill(int e, int[] out) {
    order.fill(e, out);
    synchronized (latest) {
      if (latest.order == order) {
        latest.epoch = e;
        // The engine's own array, not a copy: it allocates one per epoch and only reads it after
        // this fill, as FileNeeds does (a copy was 4 bytes a sample more, 400 MB for 10^8 samples).
        latest.kept = out;
      }
    }
  }

  @Override
  public String describe() {
    return order.describe();
  }

  /** Epoch {@code e}'s order if it is the one drawn last and not taken yet (then dropped here), else null. */
  int @Nullable [] take(int e) {
    synchronized (latest) {
      int[] k = latest.kept;
      if (k == null || latest.epoch != e) {
        return null;
      }
      latest.kept = null;
      return k;
    }
  }
}
