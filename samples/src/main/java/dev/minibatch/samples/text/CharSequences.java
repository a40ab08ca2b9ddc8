package dev.minibatch.samples.text;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.runtime.reader.Readers;
import java.util.Arrays;

/**
 * Turns text into {@link CharWindow}s with a generator: a producer thread walks the text and emits
 * one window every {@code stride} characters, as MXNet.jl's char-LSTM example cuts its corpus; the
 * generated {@link CharWindowProvider} batches them in streaming mode.
 */
public final class CharSequences {
  private CharSequences() {}

  /**
   * A reader of the windows of {@code text}: starts 0, stride, 2·stride, … while a full window and
   * its next character fit. Each pass runs the generator again.
   */
  public static Reader<CharWindow> windows(String text, Vocabulary vocabulary, int stride) {
    if (stride < 1) {
      throw new IllegalArgumentException("stride must be >= 1, got " + stride);
    }
    int[] ids = vocabulary.encode(text);
    return Readers.generate(out -> {
      for (int start = 0; start + CharWindow.LENGTH < ids.length; start += stride) {
        out.emit(new CharWindow(
            Arrays.copyOfRange(ids, start, start + CharWindow.LENGTH),
            Arrays.copyOfRange(ids, start + 1, start + CharWindow.LENGTH + 1)));
      }
    });
  }

  /** The number of windows {@link #windows} yields for a text of {@code length} characters. */
  public static int windowCount(int length, int stride) {
    return length <= CharWindow.LENGTH ? 0 : (length - CharWindow.LENGTH - 1) / stride + 1;
  }

  /** A provider of batches of windows of {@code text}, streaming from the generator. */
  public static CharWindowProvider provider(String text, Vocabulary vocabulary, int stride, int batchSize) {
    return CharWindowProvider.create(b -> b.streaming(windows(text, vocabulary, stride))
        .batchSize(batchSize).lastBatch(LastBatch.DISCARD));
  }

  /** Prints the batches of the bundled sonnet: shapes, and the first sequence with its labels. */
  public static void main(String[] args) throws java.io.IOException {
    String text;
    try (java.io.InputStream in = CharSequences.class.getResourceAsStream("/text/sonnets.txt")) {
      text = new String(java.util.Objects.requireNonNull(in, "/text/sonnets.txt").readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    Vocabulary v = Vocabulary.of(text);
    try (CharWindowProvider p = provider(text, v, CharWindow.LENGTH, 4)) {
      System.out.printf("%d characters, vocabulary of %d, %d windows%n", text.length(), v.size(),
          windowCount(text.codePointCount(0, text.length()), CharWindow.LENGTH));
      for (CharWindowBatch b : p) {
        System.out.printf("batch %s %s: '%s' -> '%s'%n", Arrays.toString(b.getChars().shape()), Arrays.toString(b.getNext().shape()),
            v.decode(b.getChars().getRow(0).toIntVector()), v.decode(b.getNext().getRow(0).toIntVector()));
      }
    }
  }
}
