package dev.minibatch.shards;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;

/**
 * How a read of a shard set's file system is tried again (docs/shards.md, "Retries"): at most
 * {@code attempts} tries in all, the {@code a}-th retry after {@code firstBackoff · 2^(a-1)} (at most
 * {@link #MAX_BACKOFF}) times a jitter factor in {@code [0.5, 1)}, and only after a transient failure:
 * a status 408, 429 or 5xx (503 SlowDown), a connection reset, dropped or cut short, a time-out. A
 * missing file, a denied one (403), a bad request, a file of another length or checksum is permanent:
 * it fails at once. The last failure names the URI, the attempts and their time, with the last cause.
 *
 * <p>This layer is the one that retries a whole-file read: the store opens S3A with its own retries
 * off ({@link #quietS3a}), so that one attempt here is one request there; settings the caller wrote
 * into the configuration stay.
 *
 * @param attempts the tries in all, {@code >= 1} (1: none again)
 * @param firstBackoff the wait before the first retry, before jitter
 */
record Retries(int attempts, Duration firstBackoff) {
  /** Six tries, the first retry after 250 ms: at most about 7.75 s of waits, about 5.8 s on average. */
  static final Retries DEFAULT = new Retries(6, Duration.ofMillis(250));
  /** The longest wait between two tries. */
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** S3A's retry settings that {@link #quietS3a} turns off unless the caller set them. */
  static final java.util.List<String> S3A_RETRY_KEYS = java.util.List.of("fs.s3a.attempts.maximum", "fs.s3a.retry.limit",
      "fs.s3a.retry.throttle.limit");

  /** One read, which may fail with an {@link IOException}. */
  interface Read<T> {
    T read() throws IOException;
  }

  Retries {
    if (attempts < 1) {
      throw new IllegalArgumentException("retries: attempts must be at least 1 (1 tries once), found " + attempts);
    }
    if (firstBackoff.isNegative()) {
      throw new IllegalArgumentException("retries: the first backoff must not be negative, found " + firstBackoff);
    }
  }

  /**
   * The wait before retry {@code retry} (1 for the first) of the read keyed {@code key}, in nanoseconds:
   * {@code firstBackoff · 2^(retry-1)}, capped at {@link #MAX_BACKOFF}, times {@code 0.5 + u/2}, {@code u}
   * in {@code [0, 1)} drawn from {@code Seeds.derive(jitter, key, retry)}. The jitter spreads the retries
   * of trainers that failed together (a throttled bucket) so that they do not come back together; its
   * seed is the store's, drawn when it opens, so it never touches the data's order.
   */
  long backoffNanos(int retry, long jitter, long key) {
    long base = firstBackoff.toNanos();
    long capped = MAX_BACKOFF.toNanos();
    for (int i = 1; i < retry && base < capped; i++) {
      base = base * 2;
    }
    base = Math.min(base, capped);
    double u = (Seeds.derive(jitter, key, retry) >>> 11) * 0x1.0p-53;
    return (long) (base * (0.5 + u / 2));
  }

  /**
   * {@code read}, tried again after transient failures.
   *
   * @param action what is done, for the message ("read")
   * @param where the file's URI, for the message
   * @param jitter the store's jitter seed
   * @throws UncheckedIOException after a permanent failure or the last attempt, naming {@code where}, the
   *     attempts made and the last cause (earlier ones suppressed in it)
   * @throws FileFormatException as {@code read} throws it (a permanent failure of the file itself)
   */
  <T> T run(String action, String where, long jitter, Read<T> read) {
    long t0 = System.nanoTime();
    IOException first = null;
    for (int attempt = 1; ; attempt++) {
      IOException failure;
      try {
        return read.read();
      } catch (IOException e) {
        failure = e;
      }
      if (first == null) {
        first = failure;
      } else if (first != failure) {
        failure.addSuppressed(first);
        first = failure;
      }
      boolean again = transientFailure(failure) && !Thread.currentThread().isInterrupted();
      if (!again || attempt >= attempts) {
        if (attempt == 1 && !again) {
          throw IoFailure.of(action, where, failure);
        }
        String tries = attempt + (attempt == 1 ? " attempt" : " attempts") + " in " + seconds(System.nanoTime() - t0)
            + (again ? "" : ", the last failing for good");
        throw IoFailure.of(action, where + " (" + tries + ")", failure);
      }
      try {
        long wait = backoffNanos(attempt, jitter, where.hashCode());
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException stopped = new InterruptedIOException("interrupted while waiting to try again after: "
            + failure);
        stopped.initCause(failure);
        throw IoFailure.of(action, where, stopped);
      }
    }
  }

  private static String seconds(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9);
  }

  /**
   * Whether trying again may succeed: the first cause (from the outside in) that says so decides. A
   * file that is missing, denied or refused as a bad request, a file of another length or checksum, and
   * an interrupt are permanent; a status 408, 429 or 5xx (an S3A exception's {@code statusCode()}), a
   * time-out, a socket failure (reset, refused), a stream ended early are transient; another
   * {@link IOException} is taken as transient (a whole-file read of a file the index lists fails mostly
   * on the way, and the attempts are bounded).
   */
  static boolean transientFailure(Throwable failure) {
    for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof FileNotFoundException || c instanceof NoSuchFileException || c instanceof AccessDeniedException
          || c instanceof FileFormatException) {
        return false;
      }
      String name = c.getClass().getSimpleName();
      if (name.equals("AccessControlException") || name.equals("AWSBadRequestException")
          || name.equals("UnknownStoreException") || name.equals("UnsupportedFileSystemException")) {
        return false;
      }
      Integer status = status(c);
      if (status != null && status >= 400) {
        return status == 408 || status == 429 || status >= 500;
      }
      if (c instanceof SocketTimeoutException || c instanceof SocketException || c instanceof EOFException) {
        return true;
      }
      if (c instanceof InterruptedIOException || c instanceof java.nio.channels.ClosedByInterruptException) {
        return false;
      }
    }
    return true;
  }

  /**
   * The HTTP status an exception carries ({@code statusCode()} of S3A's and the AWS SDK's service
   * exceptions), found by name so that this artifact does not depend on {@code hadoop-aws}; else null.
   */
  private static Integer status(Throwable t) {
    try {
      java.lang.reflect.Method m = t.getClass().getMethod("statusCode");
      if (m.getReturnType() == int.class) {
        return (Integer) m.invoke(t);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // no status: decided by its type
    }
    return null;
  }

  /**
   * Turns S3A's own retries off in {@code conf} ({@link #S3A_RETRY_KEYS} to 0) unless the caller set
   * them (in code or a site file, not Hadoop's {@code *-default.xml}): with S3A's defaults a 503 is
   * retried up to 20 times and a failed read up to 7, so a store that fails for minutes would look
   * slow here instead of failing, and the attempts and their time would not be these.
   */
  static void quietS3a(Configuration conf) {
    for (String key : S3A_RETRY_KEYS) {
      if (!setByCaller(conf, key)) {
        conf.setInt(key, 0);
      }
    }
  }

  private static boolean setByCaller(Configuration conf, String key) {
    if (conf.get(key) == null) {
      return false;
    }
    String[] sources = conf.getPropertySources(key);
    if (sources == null) {
      return true;
    }
    for (String s : sources) {
      if (!s.endsWith("-default.xml")) {
        return true;
      }
    }
    return false;
  }
}
