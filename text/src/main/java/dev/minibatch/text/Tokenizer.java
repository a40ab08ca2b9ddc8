package dev.minibatch.text;

/**
 * Text to token ids and back. An implementation is safe to use from several threads at once:
 * {@link TokenShards} calls {@link #encode} on its reader threads.
 */
public interface Tokenizer {
  /**
   * The token ids of {@code text}, each in {@code [0, vocabularySize())}. Text that spells a special
   * token (as {@code <|endoftext|>}) is encoded as ordinary text, never as the special token.
   */
  int[] encode(String text);

  /**
   * The text of {@code tokens}; {@code decode(encode(s))} is {@code s}.
   *
   * @throws IllegalArgumentException if an id is not in the vocabulary
   */
  String decode(int[] tokens);

  /** One more than the largest token id, special tokens included: the size an embedding table needs. */
  int vocabularySize();

  /** The tokeniser's name, as {@code cl100k_base}. */
  String name();
}
