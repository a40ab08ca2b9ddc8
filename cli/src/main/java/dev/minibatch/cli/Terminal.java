package dev.minibatch.cli;

import java.io.Console;
import java.io.PrintStream;

/**
 * Whether a stream of the tool reaches a person at a terminal, so that it may draw with carriage
 * returns and colours. Pipes, files, CI logs and the streams of an in-process run are not terminals.
 */
final class Terminal {
  private Terminal() {}

  /** True if {@code stream} is the process's own standard output or error and the JVM has a terminal. */
  static boolean isTerminal(PrintStream stream) {
    if (stream != System.err && stream != System.out) {
      return false;
    }
    Console console = System.console();
    return console != null && consoleIsTerminal(console);
  }

  /**
   * From JDK 22 {@code System.console()} is not null even when the streams are redirected; {@code
   * Console.isTerminal()} (JDK 22+, so found by reflection here) then tells. On JDK 17 to 21 a
   * console exists only when the process is attached to a terminal.
   */
  private static boolean consoleIsTerminal(Console console) {
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }
}
