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
   * @param epoch the epoch, from 0
   * @param position batches of that epoch already delivered
   * @param carried sample indices carried into that epoch (ROLL_OVER), in order
   * @param settings a fingerprint of the data size and sampling settings the state belongs to
   */
  public IterationState(long seed, int epoch, int position, int[] carried, String settings) {
    if (epoch < 0 || position < 0) {
      throw new IllegalArgumentException("epoch and position must be >= 0, got " + epoch + ", " + position);
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

  /** The sample indices carried into {@link #epoch()} from the one before. */
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
   * @throws IllegalArgumentException naming the part that is not as expected
   */
  public static IterationState decode(String text) {
    String[] parts = text.trim().split(";", 6);
    if (parts.length != 6 || !parts[0].equals(MAGIC)) {
      throw new IllegalArgumentException("not a minibatch iteration state (expected '" + MAGIC
          + ";seed=…;epoch=…;position=…;carried=…;settings=…'): " + text);
    }
    long seed = Long.parseLong(field(parts[1], "seed"));
    int epoch = Integer.parseInt(field(parts[2], "epoch"));
    int position = Integer.parseInt(field(parts[3], "position"));
    String c = field(parts[4], "carried");
    int[] carried = c.isEmpty() ? new int[0] : Arrays.stream(c.split(",")).mapToInt(Integer::parseInt).toArray();
    return new IterationState(seed, epoch, position, carried, field(parts[5], "settings"));
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
