package dev.minibatch.samples;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.nd4j.autodiff.samediff.SameDiff;

/**
 * Builds a SameDiff network's gradient graph without SameDiff's listing of it. SameDiff 1.0.0-M2.1
 * prints "Added differentiated op NAME" to {@link System#out} for every op while it builds the
 * gradient graph, which no logging setting reaches; the samples build that graph before training
 * with standard output discarded for that one call ({@code fit} then finds it made).
 */
public final class SameDiffGradients {
  private SameDiffGradients() {}

  /**
   * Creates {@code sd}'s gradient function with {@link System#out} discarded meanwhile. Call it from
   * the only thread that prints at that point (before training starts): standard output is
   * process-wide. Synchronized because Spark's local mode runs several trainers in one JVM: two
   * unsynchronized calls could each save the other's discarding stream as "the" standard output and
   * leave it in place for good, silencing the program.
   */
  public static synchronized void createQuietly(SameDiff sd) {
    PrintStream out = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8));
    try {
      sd.createGradFunction();
    } finally {
      System.setOut(out);
    }
  }
}
