package dev.minibatch.samples.sequences;

import static dev.minibatch.Provides.VARIABLE;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/** A tagging sample: tokens and one tag per token, sharing one length; padded tags hold -1. */
@DataProvider
record Tagged(
    @Provides(shape = {VARIABLE}) int[] tokens,
    @Provides(shape = {VARIABLE}, label = true, sameLengthAs = "tokens", stepPadding = -1) int[] tags) {

  /** Sample {@code i} of length {@code n}: tokens {@code 10i+1 .. 10i+n}, tags = tokens + 100. */
  static Tagged of(int i, int n) {
    int[] tokens = new int[n];
    int[] tags = new int[n];
    for (int t = 0; t < n; t++) {
      tokens[t] = 10 * i + t + 1;
      tags[t] = tokens[t] + 100;
    }
    return new Tagged(tokens, tags);
  }
}
