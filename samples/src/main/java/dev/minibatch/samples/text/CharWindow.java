package dev.minibatch.samples.text;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * One training sequence for a character-level language model: {@link #LENGTH} character ids, and
 * for each position the id of the character that follows it.
 *
 * <p>Both are sequences of ids, so their layout is declared {@code NT} (batch, time); left to the
 * default rule, a vector would be {@code NC}, a row of features.
 *
 * @param chars the ids of characters {@code i .. i + LENGTH - 1}
 * @param next the ids of characters {@code i + 1 .. i + LENGTH}
 */
@DataProvider
public record CharWindow(
    @Provides(shape = {CharWindow.LENGTH}, layout = "NT") int[] chars,
    @Provides(shape = {CharWindow.LENGTH}, layout = "NT", label = true) int[] next) {
  /** Characters per sequence (MXNet.jl's {@code SEQ_LENGTH} is 32 too). */
  public static final int LENGTH = 32;
}
