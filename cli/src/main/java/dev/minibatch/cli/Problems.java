package dev.minibatch.cli;

import java.util.ArrayList;
import java.util.List;

/** The problems {@code validate} found, each with its location, up to a limit. */
public final class Problems {
  /**
   * One problem.
   *
   * @param location where: the file, and the line, record, dataset or field
   * @param message what was expected and what was found
   */
  public record Problem(String location, String message) {
    @Override
    public String toString() {
      return location + ": " + message;
    }
  }

  private final int limit;
  private final List<Problem> found = new ArrayList<>();

  /** A list that holds at most {@code limit} problems. */
  public Problems(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("the problem limit must be at least 1, got " + limit);
    }
    this.limit = limit;
  }

  /** Records a problem, unless the list is full. */
  public void report(String location, String message) {
    if (!isFull()) {
      found.add(new Problem(location, message));
    }
  }

  /**
   * Records a runtime error whose message already starts with its location ({@code file:line: ...},
   * as the runtime's {@link dev.minibatch.runtime.io.FileFormatException}s do).
   */
  public void report(RuntimeException e, String location) {
    String m = String.valueOf(e.getMessage());
    if (m.startsWith(location + ": ")) {
      report(location, m.substring(location.length() + 2));
    } else {
      report(location, m);
    }
  }

  /** True when no more problems are recorded: a validator may stop walking. */
  public boolean isFull() {
    return found.size() >= limit;
  }

  /** The problems, in the order found. */
  public List<Problem> list() {
    return List.copyOf(found);
  }
}
