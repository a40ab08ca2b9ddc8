package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.io.FileFormatException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The retry rule of docs/shards.md ("Retries"): which failures are tried again, how long between tries. */
class RetriesTest {
  /** An exception of a store's service with an HTTP status, as S3A's {@code AWSServiceIOException}. */
  static final class ServiceException extends IOException {
    private final int status;

    ServiceException(int status) {
      super("status " + status);
      this.status = status;
    }

    public int statusCode() {
      return status;
    }
  }

  @Test
  void transientAndPermanentFailures() {
    assertTrue(Retries.transientFailure(new ServiceException(503)));
    assertTrue(Retries.transientFailure(new ServiceException(500)));
    assertTrue(Retries.transientFailure(new ServiceException(429)));
    assertTrue(Retries.transientFailure(new IOException("wrapped", new ServiceException(503))));
    assertTrue(Retries.transientFailure(new SocketException("Connection reset")));
    assertTrue(Retries.transientFailure(new SocketTimeoutException("Read timed out")));
    assertTrue(Retries.transientFailure(new EOFException("ended early")));
    assertFalse(Retries.transientFailure(new ServiceException(403)));
    assertFalse(Retries.transientFailure(new ServiceException(404)));
    assertFalse(Retries.transientFailure(new ServiceException(400)));
    assertFalse(Retries.transientFailure(new FileNotFoundException("gone")));
    assertFalse(Retries.transientFailure(new AccessDeniedException("s3a://b/k")));
    assertFalse(Retries.transientFailure(new IOException(new FileFormatException("f", "its CRC-32C is 1, the index says 2"))));
    assertFalse(Retries.transientFailure(new java.io.InterruptedIOException("stopped")));
  }

  @Test
  void backoffDoublesWithinHalfToWholeOfItsBaseAndIsCapped() {
    Retries r = new Retries(40, Duration.ofMillis(100));
    for (long jitter = 0; jitter < 20; jitter++) {
      for (int retry = 1; retry <= 12; retry++) {
        long base = Math.min(100_000_000L << (retry - 1), 30_000_000_000L);
        long wait = r.backoffNanos(retry, jitter, 7);
        assertTrue(wait >= base / 2 && wait < base, retry + ": " + wait + " for a base of " + base);
      }
    }
    // Jitter: two stores (seeds) wait differently.
    assertTrue(r.backoffNanos(1, 1, 7) != r.backoffNanos(1, 2, 7));
  }

  @Test
  void aReadIsTriedUntilItSucceedsOrTheAttemptsEnd() {
    int[] calls = {0};
    Retries r = new Retries(4, Duration.ZERO);
    assertEquals("ok", r.run("read", "s3a://b/f", 1, () -> {
      if (++calls[0] < 3) {
        throw new SocketException("Connection reset");
      }
      return "ok";
    }));
    assertEquals(3, calls[0]);
    calls[0] = 0;
    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> r.run("read", "s3a://b/f", 1, () -> {
      calls[0]++;
      throw new ServiceException(503);
    }));
    assertEquals(4, calls[0]);
    assertTrue(e.getMessage().startsWith("cannot read s3a://b/f (4 attempts in "), e.getMessage());
    assertTrue(e.getMessage().endsWith(": status 503"), e.getMessage());
    assertEquals(3, countSuppressed(e.getCause()));
    calls[0] = 0;
    e = assertThrows(UncheckedIOException.class, () -> r.run("read", "s3a://b/f", 1, () -> {
      calls[0]++;
      throw new ServiceException(calls[0] == 1 ? 503 : 403);
    }));
    assertEquals(2, calls[0]);
    assertTrue(e.getMessage().startsWith("cannot read s3a://b/f (2 attempts in "), e.getMessage());
    assertTrue(e.getMessage().contains(", the last failing for good): status 403"), e.getMessage());
  }

  private static int countSuppressed(Throwable t) {
    int n = 0;
    while (t.getSuppressed().length > 0) {
      t = t.getSuppressed()[0];
      n++;
    }
    return n;
  }

  @Test
  void s3aRetriesAreTurnedOffUnlessTheCallerSetThem() {
    Configuration conf = new Configuration();
    conf.setInt("fs.s3a.retry.limit", 3);
    Retries.quietS3a(conf);
    assertEquals(3, conf.getInt("fs.s3a.retry.limit", -1));
    assertEquals(0, conf.getInt("fs.s3a.attempts.maximum", -1));
    assertEquals(0, conf.getInt("fs.s3a.retry.throttle.limit", -1));
  }
}
