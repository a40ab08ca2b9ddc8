package dev.minibatch.shards;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A node-local directory of shard files fetched from their sets' file systems, shared by every
 * process of the node that reads with the same directory, and kept across restarts
 * (docs/shards.md, "The disk cache"). It sits between the store and the in-memory cache: a file is
 * fetched once per node, its CRC-32C checked against the index as it arrives, written to a hidden
 * temporary file and renamed into place; a copy found in place is trusted (read without a checksum
 * pass), so a warm epoch sums no byte.
 *
 * <p>A copy's name is a hash of the set's location, the file's name, length and CRC-32C, then the
 * file's name: two sets never share a copy, and a set rewritten in place (new checksums in its
 * index) is never served the old bytes.
 *
 * <p>Processes coordinate through file locks under {@code locks/}: one per file, held while it is
 * fetched, so one process fetches and the others wait for its copy; one for the directory, held
 * while a copy is admitted (room made, written, renamed), so the size limit holds for the node. A
 * file lock belongs to the whole JVM, so threads of one JVM first take a lock of their own on the
 * same path. Lock files stay (empty): deleting one while another process waits on it would let a
 * third lock a new file of that name.
 */
final class ShardDiskCache {
  private static final String LOCKS = "locks";
  private static final String DIRECTORY_LOCK = "directory.lock";
  private static final String TEMPORARY = ".tmp";
  // Per lock file, the JVM's own lock: two channels of one JVM on one file must never be open at
  // once (closing either would release the other's file lock).
  private static final ConcurrentHashMap<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();
  // The copies this JVM is reading now: eviction passes them over (on POSIX systems deleting an open
  // file is safe, elsewhere it fails; either way the reader keeps its bytes).
  private static final ConcurrentHashMap<Path, AtomicInteger> READING = new ConcurrentHashMap<>();

  private final Path directory;
  private final Path locks;
  private final long maxBytes;

  /** Where a file's bytes came from: a copy found here (trusted), or fetched and checked now. */
  record Copy(boolean trusted) {}

  /**
   * The cache in {@code directory} (created if missing), holding at most {@code maxBytes} bytes of
   * copies.
   *
   * @throws UncheckedIOException if the directory cannot be created
   */
  ShardDiskCache(Path directory, long maxBytes) {
    this.directory = directory.toAbsolutePath().normalize();
    this.locks = this.directory.resolve(LOCKS);
    this.maxBytes = maxBytes;
    try {
      Files.createDirectories(locks);
    } catch (IOException e) {
      throw IoFailure.of("create the disk cache directory", this.directory, e);
    }
  }

  /**
   * Refuses a limit below the bytes of the {@code files} largest files of {@code sets}: the files the
   * in-memory cache must hold at once ({@link CacheSize}), which the node's copy must hold too.
   *
   * @throws IllegalArgumentException naming the smallest limit that works
   */
  void check(ShardFiles sets, int files, String what) {
    long[] sizes = new long[sets.size()];
    for (int f = 0; f < sizes.length; f++) {
      sizes[f] = sets.entry(f).bytes();
    }
    java.util.Arrays.sort(sizes);
    long need = 0;
    for (int i = sizes.length - 1; i >= Math.max(0, sizes.length - files); i--) {
      need += sizes[i];
    }
    if (maxBytes < need) {
      throw new IllegalArgumentException("diskCache(" + directory + ", " + maxBytes + ") is too small: " + what + " "
          + files + " files at once, " + need + " bytes for the largest of them, and the disk cache holds at least the"
          + " files read at once; the smallest limit that works is " + need + " bytes");
    }
  }

  /**
   * Reads the bytes of {@code entry} of {@code store} into the start of {@code into}: the copy here if
   * there is one of the index's length (trusted), else fetched, checked against the index's CRC-32C
   * (a mismatch is fetched once more) and stored. A file that finds no room (every copy being read by
   * this JVM) is read unstored.
   *
   * @throws FileFormatException if the file fetched twice does not match the index, naming it
   * @throws UncheckedIOException if the store or the cache directory fails
   */
  Copy get(ShardStore store, ShardIndex.Entry entry, ByteBuffer into) {
    Path copy = directory.resolve(name(store, entry));
    if (readCopy(copy, entry.bytes(), into)) {
      return new Copy(true);
    }
    return locked(locks.resolve(copy.getFileName() + ".lock"), () -> {
      // Another process may have fetched it while this one waited for the lock.
      if (readCopy(copy, entry.bytes(), into)) {
        return new Copy(true);
      }
      try {
        Files.deleteIfExists(copy); // of another length: not counted against the room the new copy needs
      } catch (IOException e) {
        throw IoFailure.of("delete", copy, e);
      }
      fetch(store, entry, into);
      admit(copy, into.slice(0, (int) entry.bytes()));
      return new Copy(false);
    });
  }

  /**
   * The copy of {@code entry} mapped into memory, if there is one of the index's length (trusted; a
   * hit counts as a use), else null. Another process may evict it while it is mapped: on POSIX systems
   * the mapping keeps its bytes (where a mapped file cannot be deleted, eviction takes another).
   *
   * @throws UncheckedIOException if it cannot be mapped
   */
  ShardStore.@Nullable Mapped map(ShardStore store, ShardIndex.Entry entry) {
    Path copy = directory.resolve(name(store, entry));
    try {
      ShardStore.Mapped m = ShardStore.mapIfLength(copy, (int) entry.bytes());
      if (m != null) {
        touch(copy);
      }
      return m;
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw IoFailure.of("read", copy, e);
    }
  }

  /** Deletes the copy of {@code entry}, one that failed to decode: damaged on the local disk. */
  void discard(ShardStore store, ShardIndex.Entry entry) {
    Path copy = directory.resolve(name(store, entry));
    locked(locks.resolve(copy.getFileName() + ".lock"), () -> {
      try {
        Files.deleteIfExists(copy);
      } catch (IOException e) {
        throw IoFailure.of("delete", copy, e);
      }
      return null;
    });
  }

  /** The copy's file name: a hash of what makes the bytes, then the file's own name, for people. */
  static String name(ShardStore store, ShardIndex.Entry entry) {
    String identity = store.directory() + "\n" + entry.name() + "\n" + entry.bytes() + "\n" + entry.crc32c();
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
      String readable = entry.name().replaceAll("[^A-Za-z0-9._-]", "_");
      if (readable.length() > 100) {
        readable = readable.substring(readable.length() - 100);
      }
      return HexFormat.of().formatHex(hash, 0, 12) + "-" + readable;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /**
   * Reads the copy into {@code into} from index 0 if it is there and {@code length} long, else
   * returns false; a hit counts as a use. Read in pieces ({@link ShardStore#PIECE}): a channel reads a
   * heap buffer through a native buffer of each read's size.
   */
  private static boolean readCopy(Path copy, long length, ByteBuffer into) {
    AtomicInteger readers = READING.computeIfAbsent(copy, p -> new AtomicInteger());
    readers.incrementAndGet();
    try (FileChannel in = FileChannel.open(copy, StandardOpenOption.READ)) {
      if (in.size() != length) {
        return false; // cut or replaced on the local disk: fetched again
      }
      int n = 0;
      while (n < length) {
        int r = in.read(into.slice(n, (int) Math.min(ShardStore.PIECE, length - n)));
        if (r < 0) {
          return false;
        }
        n += r;
      }
      touch(copy);
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      throw IoFailure.of("read", copy, e);
    } finally {
      readers.decrementAndGet();
    }
  }

  /** Marks a copy as just used: eviction takes the least recently used first. */
  private static void touch(Path copy) {
    try {
      Files.setLastModifiedTime(copy, FileTime.from(java.time.Instant.now()));
    } catch (NoSuchFileException e) {
      // evicted by another process since the read: the bytes are read already
    } catch (IOException e) {
      throw IoFailure.of("update the time of", copy, e);
    }
  }

  /** Reads the file from its store into {@code into}, checked against the index's CRC-32C, fetched once more on a mismatch. */
  private void fetch(ShardStore store, ShardIndex.Entry entry, ByteBuffer into) {
    int crc = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
      crc = store.read(entry.name(), entry.bytes(), into);
      if (crc == entry.crc32c()) {
        return;
      }
    }
    throw new FileFormatException(store.where(entry.name()), "its CRC-32C is " + String.format("%08x", crc)
        + ", the index says " + String.format("%08x", entry.crc32c()) + " (fetched twice for the disk cache " + directory
        + "): the file was changed or corrupted after the index was written");
  }

  /**
   * Stores the bytes between {@code bytes}' position and limit as {@code copy}, under the directory's lock: copies least recently used
   * are deleted until it fits, then it is written to a temporary file and renamed into place. If
   * it cannot fit (the copies left are being read by this JVM), it is not stored.
   */
  private void admit(Path copy, ByteBuffer bytes) {
    locked(locks.resolve(DIRECTORY_LOCK), () -> {
      if (!makeRoom(bytes.remaining())) {
        return null;
      }
      Path temporary = directory.resolve(copy.getFileName() + "." + UUID.randomUUID() + TEMPORARY);
      try {
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
          // In pieces, as the copy is read: a channel writes a heap buffer through a native buffer of each write's size.
          int length = bytes.remaining();
          for (int at = 0; at < length; at += ShardStore.PIECE) {
            ByteBuffer b = bytes.slice(at, Math.min(ShardStore.PIECE, length - at));
            while (b.hasRemaining()) {
              out.write(b);
            }
          }
          // On the disk before the rename, so a machine that stops leaves the copy whole or absent.
          out.force(true);
        }
        // The clock's time, not the file system's coarser one (a tick of a few ms): copies admitted one
        // after the other must not tie, or eviction could take the later first.
        Files.setLastModifiedTime(temporary, FileTime.from(java.time.Instant.now()));
        Files.move(temporary, copy, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        try {
          Files.deleteIfExists(temporary);
        } catch (IOException ignored) {
          // the next admission deletes it
        }
        throw IoFailure.of("write", copy, e);
      }
      return null;
    });
  }

  /**
   * Deletes copies, least recently used first, until {@code bytes} more fit; temporary files left
   * by a process that stopped while writing go first (every writer holds the directory's lock,
   * which the caller holds now, so no temporary file is being written). Under the directory's lock.
   */
  private boolean makeRoom(long bytes) {
    record Held(Path path, long size, FileTime used) {}
    List<Held> copies = new ArrayList<>();
    long total = 0;
    try (DirectoryStream<Path> all = Files.newDirectoryStream(directory)) {
      for (Path p : all) {
        BasicFileAttributes a;
        try {
          a = Files.readAttributes(p, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
          continue;
        }
        if (!a.isRegularFile()) {
          continue;
        }
        if (p.getFileName().toString().endsWith(TEMPORARY)) {
          Files.deleteIfExists(p);
          continue;
        }
        copies.add(new Held(p, a.size(), a.lastModifiedTime()));
        total += a.size();
      }
    } catch (IOException e) {
      throw IoFailure.of("list", directory, e);
    }
    copies.sort(java.util.Comparator.comparing(Held::used));
    for (int i = 0; i < copies.size() && total + bytes > maxBytes; i++) {
      Held h = copies.get(i);
      AtomicInteger readers = READING.get(h.path());
      if (readers != null && readers.get() > 0) {
        continue;
      }
      try {
        Files.deleteIfExists(h.path());
        total -= h.size();
      } catch (IOException e) {
        // held open where an open file cannot be deleted: another copy goes instead
      }
    }
    return total + bytes <= maxBytes;
  }

  /**
   * Runs {@code work} holding the lock file {@code lock}: this JVM's lock on it, then the file lock.
   * The directory's lock is waited for; a file's lock is polled ({@code tryLock}): the kernel
   * counts a lock wait per process, not per thread, so two processes whose threads each hold one
   * file's lock and wait for the other's would be refused as a deadlock (EDEADLK), though each
   * thread would go on. Only the directory's lock is ever waited for, and its holders wait for
   * nothing, so no wait closes a cycle.
   */
  @SuppressWarnings("try") // the file lock is held for the body, which never refers to it
  private static <T> T locked(Path lock, Supplier<T> work) {
    boolean poll = !lock.getFileName().toString().equals(DIRECTORY_LOCK);
    ReentrantLock mine = JVM_LOCKS.computeIfAbsent(lock, p -> new ReentrantLock());
    mine.lock();
    try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = poll ? poll(channel, lock) : channel.lock()) {
      return work.get();
    } catch (IOException e) {
      throw IoFailure.of("lock", lock, e);
    } finally {
      mine.unlock();
    }
  }

  /** The file lock of {@code channel}, tried until it is free (a fetch elsewhere takes milliseconds to seconds). */
  private static FileLock poll(FileChannel channel, Path lock) throws IOException {
    long pause = 1;
    while (true) {
      FileLock l = channel.tryLock();
      if (l != null) {
        return l;
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while waiting for " + lock);
      }
      pause = Math.min(20, pause * 2);
    }
  }

  /** The directory, for messages and {@code toString}. */
  Path directory() {
    return directory;
  }
}
