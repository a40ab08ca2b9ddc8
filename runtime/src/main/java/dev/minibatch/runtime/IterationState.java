package dev.minibatch.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Where a provider stands: its seed, the epoch in progress (or next), how many batches of that
 * epoch were delivered, and the samples carried into that epoch by {@link
 * dev.minibatch.LastBatch#ROLL_OVER}. Restoring it into a provider with the same data and settings
 * yields exactly the batches that would have come next, so training can resume mid-epoch.
 *
 * <p>One rule for the seed: it is a value the state carries, never a check. Restoring a state makes
 * its seed the provider's — its shuffles, class draws, shard-set mixes and a stream's batches use it
 * from then on, and {@code seed()} reports it — whatever seed the provider was built with, so a run
 * whose seed was drawn resumes in a provider built without one. What must match is the data and
 * settings, which {@link #settings()} holds and every provider checks.
 *
 * <p>A provider of providers ({@code ResizedProvider}, {@code MergedProvider}) composes its state:
 * its own epoch and position, a fingerprint naming its kind and settings, and the states of the
 * providers it wraps as {@link #parts()}, in order.
 *
 * <p>{@link #encode()} gives a one-line text form for checkpoints; {@link #decode(String)} reads
 * it back. A state without parts is written as version 1, {@code
 * minibatch-state/1;seed=…;epoch=…;position=…;carried=…;settings=…}, as before parts existed; one
 * with parts as version 2, the same six fields then {@code ;parts=n} and the {@code n} parts' own
 * text, each a version 1 or 2 state, one after another. No field holds a {@code ;}, so the text
 * reads back unambiguously; {@link #decode(String)} reads both versions.
 */
public final class IterationState {
  private static final String MAGIC = "minibatch-state/1";
  private static final String MAGIC_PARTS = "minibatch-state/2";
  /**
   * The deepest nesting of parts {@link #decode} reads: providers wrap providers a few levels deep,
   * and a bound keeps a crafted line of nested parts from exhausting the reading thread's stack.
   */
  static final int MAX_DEPTH = 64;

  private final long seed;
  private final int epoch;
  private final int position;
  private final int[] carried;
  private final String settings;
  private final List<IterationState> parts;

  /**
   * A state with no parts.
   *
   * @param seed the provider's shuffle seed
   * @param epoch the epoch, from 0, below {@code Integer.MAX_VALUE} (the next epoch must be countable)
   * @param position batches of that epoch already delivered
   * @param carried sample indices carried into that epoch (ROLL_OVER), in order
   * @param settings a fingerprint of the data size and sampling settings the state belongs to
   */
  public IterationState(long seed, int epoch, int position, int[] carried, String settings) {
    this(seed, epoch, position, carried, settings, List.of());
  }

  /**
   * A state composed of the states of the providers a provider wraps.
   *
   * @param seed the provider's shuffle seed (0 for one that draws none of its own)
   * @param epoch the provider's epoch, from 0, below {@code Integer.MAX_VALUE}
   * @param position batches of that epoch already delivered
   * @param carried sample indices carried into that epoch (ROLL_OVER), in order
   * @param settings a fingerprint of the provider's kind and settings
   * @param parts the states of the wrapped providers, in order; empty for a provider that wraps none
   */
  public IterationState(long seed, int epoch, int position, int[] carried, String settings,
      List<IterationState> parts) {
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
    this.parts = List.copyOf(parts);
  }

  /**
   * The provider's seed when the state was saved, which restoring the state makes the provider's
   * seed again (see the class comment).
   */
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

  /**
   * The states of the providers this provider wraps, in the order it wraps them; empty for a
   * provider that wraps none.
   */
  public List<IterationState> parts() {
    return parts;
  }

  /** One line of text that {@link #decode(String)} reads back: version 1 without parts, else 2. */
  public String encode() {
    StringBuilder sb = new StringBuilder();
    encode(sb);
    return sb.toString();
  }

  private void encode(StringBuilder sb) {
    sb.append(parts.isEmpty() ? MAGIC : MAGIC_PARTS)
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
    sb.append(";settings=").append(settings);
    if (!parts.isEmpty()) {
      sb.append(";parts=").append(parts.size());
      for (IterationState p : parts) {
        sb.append(';');
        p.encode(sb);
      }
    }
  }

  /**
   * Reads a state written by {@link #encode()}, of either version.
   *
   * @throws IllegalArgumentException naming the part that is not as expected, and for a number, the
   *     field and its valid range; also for settings holding a line break, and for parts nested more
   *     than 64 levels deep
   */
  public static IterationState decode(String text) {
    String[] tokens = text.trim().split(";", -1);
    if (tokens.length < 6 || !(tokens[0].equals(MAGIC) || tokens[0].equals(MAGIC_PARTS))) {
      throw new IllegalArgumentException("not a minibatch iteration state (expected '" + MAGIC
          + ";seed=…;epoch=…;position=…;carried=…;settings=…'): " + text);
    }
    int[] at = {0};
    IterationState s = read(tokens, at, 0);
    if (at[0] != tokens.length) {
      throw new IllegalArgumentException("iteration state: unexpected text after the state: '"
          + String.join(";", Arrays.asList(tokens).subList(at[0], tokens.length)) + "'");
    }
    return s;
  }

  /** The state that starts at {@code tokens[at[0]]}; leaves {@code at[0]} after it. */
  private static IterationState read(String[] tokens, int[] at, int depth) {
    int i = at[0];
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException("iteration state: parts nested more than " + MAX_DEPTH + " levels deep");
    }
    if (i + 6 > tokens.length) {
      throw new IllegalArgumentException("iteration state: a part ends early: expected '" + MAGIC
          + ";seed=…;epoch=…;position=…;carried=…;settings=…', found '"
          + String.join(";", Arrays.asList(tokens).subList(i, tokens.length)) + "'");
    }
    boolean composed = tokens[i].equals(MAGIC_PARTS);
    if (!composed && !tokens[i].equals(MAGIC)) {
      throw new IllegalArgumentException("iteration state: expected '" + MAGIC + "' or '" + MAGIC_PARTS
          + "' to start a part, found '" + tokens[i] + "'");
    }
    long seed = number(field(tokens[i + 1], "seed"), "seed", Long.MIN_VALUE, Long.MAX_VALUE);
    int epoch = (int) number(field(tokens[i + 2], "epoch"), "epoch", 0, Integer.MAX_VALUE - 1);
    int position = (int) number(field(tokens[i + 3], "position"), "position", 0, Integer.MAX_VALUE);
    String c = field(tokens[i + 4], "carried");
    String[] items = c.isEmpty() ? new String[0] : c.split(",", -1);
    int[] carried = new int[items.length];
    for (int k = 0; k < items.length; k++) {
      carried[k] = (int) number(items[k], "carried[" + k + "]", 0, Integer.MAX_VALUE);
    }
    String settings = field(tokens[i + 5], "settings");
    if (settings.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("iteration state: settings must be on the state's one line, found a line break"
          + " in '" + settings + "'");
    }
    at[0] = i + 6;
    List<IterationState> parts = new ArrayList<>();
    if (composed) {
      if (at[0] >= tokens.length) {
        throw new IllegalArgumentException("iteration state: a " + MAGIC_PARTS + " state needs 'parts=…' after its"
            + " settings");
      }
      int n = (int) number(field(tokens[at[0]], "parts"), "parts", 1, Integer.MAX_VALUE);
      at[0]++;
      for (int k = 0; k < n; k++) {
        parts.add(read(tokens, at, depth + 1));
      }
    }
    return new IterationState(seed, epoch, position, carried, settings, parts);
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
        && Arrays.equals(carried, s.carried) && settings.equals(s.settings) && parts.equals(s.parts);
  }

  @Override
  public int hashCode() {
    return Objects.hash(seed, epoch, position, Arrays.hashCode(carried), settings, parts);
  }

  @Override
  public String toString() {
    return encode();
  }
}
