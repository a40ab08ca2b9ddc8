package dev.minibatch.spark;

import static dev.minibatch.Provides.VARIABLE;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * A variable-length test sample: sentence {@code i} has {@code 1 + i % 4} token ids {@code 10i ..
 * 10i + n - 1}, and its id as label; its ids map to an array column of any length.
 *
 * @param ids the token ids
 * @param y the id
 */
@DataProvider
public record Sentence(@Provides(shape = {VARIABLE}) int[] ids, @Provides(label = true) int y)
    implements java.io.Serializable {
  /** Sentence {@code i}. */
  static Sentence of(int i) {
    int[] ids = new int[1 + i % 4];
    for (int t = 0; t < ids.length; t++) {
      ids[t] = 10 * i + t;
    }
    return new Sentence(ids, i);
  }
}
