package dev.minibatch.samples.text;

import java.util.Arrays;

/**
 * Character ids: id 0 is reserved for characters not in the vocabulary (MXNet.jl's {@code UNKNOWN_CHAR}),
 * then every distinct character of the text that built it, in code point order.
 */
public final class Vocabulary {
  /** The id of a character the vocabulary does not know. */
  public static final int UNKNOWN = 0;

  private final int[] codePoints;

  private Vocabulary(int[] codePoints) {
    this.codePoints = codePoints;
  }

  /** The vocabulary of {@code text}. */
  public static Vocabulary of(CharSequence text) {
    return new Vocabulary(text.codePoints().distinct().sorted().toArray());
  }

  /** The number of ids, the unknown id included. */
  public int size() {
    return codePoints.length + 1;
  }

  /** The id of {@code codePoint}, or {@link #UNKNOWN}. */
  public int id(int codePoint) {
    int i = Arrays.binarySearch(codePoints, codePoint);
    return i < 0 ? UNKNOWN : i + 1;
  }

  /** The character of {@code id}; U+FFFD for {@link #UNKNOWN}. */
  public int codePoint(int id) {
    return id == UNKNOWN ? 0xFFFD : codePoints[id - 1];
  }

  /** The ids of {@code text}'s characters. */
  public int[] encode(CharSequence text) {
    return text.codePoints().map(this::id).toArray();
  }

  /** The text of {@code ids}. */
  public String decode(int[] ids) {
    StringBuilder sb = new StringBuilder();
    for (int id : ids) {
      sb.appendCodePoint(codePoint(id));
    }
    return sb.toString();
  }
}
