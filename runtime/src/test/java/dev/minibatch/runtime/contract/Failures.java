package dev.minibatch.runtime.contract;

import dev.minibatch.runtime.pipeline.StageFailedException;
import java.util.IdentityHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Walks cause chains (guarding against cycles); public for tests outside the contract. */
public final class Failures {
  private Failures() {}

  /** The first {@link StageFailedException} in {@code t}'s cause chain, {@code t} included. */
  static @Nullable StageFailedException stageFailure(Throwable t) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, true) == null; c = c.getCause()) {
      if (c instanceof StageFailedException s) {
        return s;
      }
    }
    return null;
  }

  /** The last exception of {@code t}'s cause chain. */
  static Throwable root(Throwable t) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    Throwable c = t;
    while (c.getCause() != null && seen.put(c, true) == null) {
      c = c.getCause();
    }
    return c;
  }

  /** The chain as one line: {@code A: msg <- B: msg <- ...}. */
  public static String chain(Throwable t) {
    StringBuilder sb = new StringBuilder();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, true) == null; c = c.getCause()) {
      if (sb.length() > 0) {
        sb.append(" <- caused by ");
      }
      sb.append(c);
    }
    return sb.toString();
  }
}
