package dev.minibatch.samples.text;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * One training sequence for a character-level language model: {@link #LENGTH} character ids, and
 * for each position the id of the character that follows it.
 *
 * @param chars the ids of characters {@code i .. i + LENGTH - 1}
 * @param next the ids of characters {@code i + 1 .. i + LENGTH}
 */
@DataProvider
public record CharWindow(
    @Provides(shape = {CharWindow.LENGTH}) int[] chars,
    @Provides(shape = {CharWindow.LENGTH}, label = true) int[] next) {
  /** Characters per sequence (MXNet.jl's {@code SEQ_LENGTH} is 32 too). */
  public static final int LENGTH = 32;
}
