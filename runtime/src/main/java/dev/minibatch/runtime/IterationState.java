package dev.minibatch.runtime;

import java.util.Arrays;
import java.util.Objects;

/**
 * Where a provider stands: its seed, the epoch in progress (or next), how many batches of that
 * epoch were delivered, and the samples carried into that epoch by {@link
 * dev.minibatch.LastBatch#ROLL_OVER}. Restoring it into a provider with the same data and settings
 * yields exactly the batches that would have come next, so training can resume mid-epoch.
 *
 * <p>{@link #encode()} gives a one-line text form for checkpoints; {@link #decode(String)} reads
 * it back.
 */
public final class IterationState {
  private static final String MAGIC = "minibatch-state/1";

  private final long seed;
  private final int epoch;
  private final int position;
  private final int[] carried;
  private final String settings;

  /**
   * A state.
   *
   * @param seed the provider's shuffle seed
   * @param epoch the epoch, from 0, below {@code Integer.MAX_VALUE} (the next epoch must be countable)
   * @param position batches of that epoch already delivered
   * @param carried sample indices carried into that epoch (ROLL_OVER), in order
   * @param settings a fingerprint of the data size and sampling settings the state belongs to
   */
  public IterationState(long seed, int epoch, int position, int[] carried, String settings) {
    if (epoch < 0 || epoch == Integer.MAX_VALUE) {
      throw new IllegalArgumentException("iteration state: epoch must be in [0, " + (Integer.MAX_VALUE - 1) + "], found "
          + epoch);
    }
    if (position < 0) {
      throw new IllegalArgumentException("iteration state: position must be >= 0, found " + position);
    }
    if (settings.indexOf(';') >= 0 || settings.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("settings fingerprint must not contain ';' or a line break");
    }
    this.seed = seed;
    this.epoch = epoch;
    this.position = position;
    this.carried = carried.clone();
    this.settings = settings;
  }

  /** The shuffle seed. */
  public long seed() {
    return seed;
  }

  /** The epoch in progress, or the next one if none is. Counted from 0. */
  public int epoch() {
    return epoch;
  }

  /** How many batches of {@link #epoch()} were delivered. */
  public int position() {
    return position;
  }

  /**
   * The sample indices carried into {@link #epoch()} from the one before. A bucketed provider
   * keeps a carry per bucket and stores them here as groups {@code [bucket, count, samples...]},
   * one per bucket with a carry, by ascending bucket index.
   */
  public int[] carried() {
    return carried.clone();
  }

  /** The fingerprint of the data size and settings this state belongs to. */
  public String settings() {
    return settings;
  }

  /** One line of text that {@link #decode(String)} reads back. */
  public String encode() {
    StringBuilder sb = new StringBuilder(MAGIC)
        .append(";seed=").append(seed)
        .append(";epoch=").append(epoch)
        .append(";position=").append(position)
        .append(";carried=");
    for (int i = 0; i < carried.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(carried[i]);
    }
    return sb.append(";settings=").append(settings).toString();
  }

  /**
   * Reads a state written by {@link #encode()}.
   *
   * @throws IllegalArgumentException naming the part that is not as expected, and for a number, the
   *     field and its valid range
   */
  public static IterationState decode(String text) {
    String[] parts = text.trim().split(";", 6);
    if (parts.length != 6 || !parts[0].equals(MAGIC)) {
      throw new IllegalArgumentException("not a minibatch iteration state (expected '" + MAGIC
          + ";seed=…;epoch=…;position=…;carried=…;settings=…'): " + text);
    }
    long seed = number(field(parts[1], "seed"), "seed", Long.MIN_VALUE, Long.MAX_VALUE);
    int epoch = (int) number(field(parts[2], "epoch"), "epoch", 0, Integer.MAX_VALUE - 1);
    int position = (int) number(field(parts[3], "position"), "position", 0, Integer.MAX_VALUE);
    String c = field(parts[4], "carried");
    String[] items = c.isEmpty() ? new String[0] : c.split(",", -1);
    int[] carried = new int[items.length];
    for (int i = 0; i < items.length; i++) {
      carried[i] = (int) number(items[i], "carried[" + i + "]", 0, Integer.MAX_VALUE);
    }
    return new IterationState(seed, epoch, position, carried, field(parts[5], "settings"));
  }

  /** {@code text} as a decimal integer in {@code [min, max]}, or an error naming the field and the range. */
  private static long number(String text, String field, long min, long max) {
    long v;
    try {
      v = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("iteration state: " + field + " must be an integer in [" + min + ", " + max
          + "], found '" + text + "'", e);
    }
    if (v < min || v > max) {
      throw new IllegalArgumentException("iteration state: " + field + " must be in [" + min + ", " + max + "], found " + v);
    }
    return v;
  }

  private static String field(String part, String key) {
    if (!part.startsWith(key + "=")) {
      throw new IllegalArgumentException("iteration state: expected '" + key + "=…', found '" + part + "'");
    }
    return part.substring(key.length() + 1);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof IterationState)) {
      return false;
    }
    IterationState s = (IterationState) o;
    return seed == s.seed && epoch == s.epoch && position == s.position
        && Arrays.equals(carried, s.carried) && settings.equals(s.settings);
  }

  @Override
  public int hashCode() {
    return Objects.hash(seed, epoch, position, Arrays.hashCode(carried), settings);
  }

  @Override
  public String toString() {
    return encode();
  }
}
