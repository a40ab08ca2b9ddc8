package dev.minibatch.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The ranges of numeric options that their type does not say (a batch of at least 1 row, at least
 * 0 warm-up epochs). A value outside is a usage error, as a value that is not a number is: picocli
 * prints the message and the command's usage, and the tool exits 2. Commands check their options
 * first, before they read any file.
 */
final class OptionRange {
  private OptionRange() {}

  /**
   * Requires {@code value} of {@code option} to be at least {@code min}.
   *
   * @throws ParameterException naming the option, the value and the smallest allowed
   */
  static void atLeast(CommandSpec spec, String option, long value, long min) {
    if (value < min) {
      throw new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + value
          + "; expected at least " + min);
    }
  }
}
