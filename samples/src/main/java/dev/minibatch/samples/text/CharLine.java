package dev.minibatch.samples.text;

import static dev.minibatch.Provides.VARIABLE;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import dev.minibatch.TooLong;

/**
 * One line of text for a character-level language model, as long as the line is: its character
 * ids and, per position, the id of the character that follows. Lines differ in length, so both
 * members have a variable axis that shares one length ({@code sameLengthAs}); batches pad them to
 * their longest line (or their bucket's bound) and carry a mask of the real steps.
 *
 * @param chars the ids of the line's characters but the last
 * @param next the ids of the line's characters but the first
 */
@DataProvider
public record CharLine(
    @Provides(shape = {VARIABLE}, maxLength = CharLine.MAX_LENGTH, tooLong = TooLong.TRUNCATE_END) int[] chars,
    @Provides(shape = {VARIABLE}, sameLengthAs = "chars", label = true) int[] next) {
  /** The longest line kept whole; longer ones keep their first characters. */
  public static final int MAX_LENGTH = 96;
}
