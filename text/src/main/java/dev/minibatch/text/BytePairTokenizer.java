package dev.minibatch.text;

import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.IntArrayList;

/** A JTokkit encoding as a {@link Tokenizer}; JTokkit's encodings are immutable and thread-safe. */
final class BytePairTokenizer implements Tokenizer {
  private final Encoding encoding;
  private final int vocabularySize;

  /**
   * @param vocabularySize one more than the encoding's largest id, as tiktoken's {@code n_vocab}:
   *     JTokkit does not say it
   */
  BytePairTokenizer(Encoding encoding, int vocabularySize) {
    this.encoding = encoding;
    this.vocabularySize = vocabularySize;
  }

  @Override
  public int[] encode(String text) {
    // Ordinary: a corpus that quotes "<|endoftext|>" holds text, not a document boundary (JTokkit's
    // encode would refuse it).
    return encoding.encodeOrdinary(text).toArray();
  }

  @Override
  public String decode(int[] tokens) {
    IntArrayList ids = new IntArrayList(tokens.length);
    for (int i = 0; i < tokens.length; i++) {
      int t = tokens[i];
      if (t < 0 || t >= vocabularySize) {
        throw new IllegalArgumentException(name() + " cannot decode id " + t + " at " + i + " (ids are 0 to "
            + (vocabularySize - 1) + ")");
      }
      ids.add(t);
    }
    try {
      return encoding.decode(ids);
    } catch (RuntimeException e) {
      // An id in range that the encoding leaves unused (cl100k_base has no 100256).
      throw new IllegalArgumentException(name() + " cannot decode " + tokens.length + " ids: " + e.getMessage(), e);
    }
  }

  @Override
  public int vocabularySize() {
    return vocabularySize;
  }

  @Override
  public String name() {
    return encoding.getName();
  }

  @Override
  public String toString() {
    return name();
  }
}
