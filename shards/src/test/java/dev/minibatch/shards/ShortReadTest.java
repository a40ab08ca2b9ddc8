package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream that ends early on a file of the index's length (a connection closed without an error) is
 * a transient failure, read again; only a file whose length differs is "changed or cut".
 */
class ShortReadTest {
  @TempDir Path dir;

  @Test
  void aStreamEndingEarlyOnAWholeFileIsReadAgain() throws Exception {
    String set = ShortReadFileSystem.SCHEME + "://" + IdSamples.write(dir, "set", 0, 100, 50);
    try (ShardStore store = ShardStore.open(set, ShortReadFileSystem.conf(), new Retries(3, Duration.ZERO))) {
      ShardIndex.Entry e = ShardIndex.read(store).files().get(0);
      byte[] onDisk = Files.readAllBytes(dir.resolve("set").resolve(e.name()));
      ShortReadFileSystem.OPENS.set(0);
      ShortReadFileSystem.SHORT.set(2);
      assertArrayEquals(onDisk, store.readFully(e.name(), e.bytes()));
      assertEquals(3, ShortReadFileSystem.OPENS.get());
      // Cut short every time: the last attempt's error says how far the stream went.
      ShortReadFileSystem.OPENS.set(0);
      ShortReadFileSystem.SHORT.set(5);
      UncheckedIOException failed = assertThrows(UncheckedIOException.class, () -> store.readFully(e.name(), e.bytes()));
      assertTrue(failed.getMessage().startsWith("cannot read " + store.where(e.name()) + " (3 attempts in "), failed.getMessage());
      assertTrue(failed.getMessage().endsWith("the stream ended after " + onDisk.length / 2 + " of the file's "
          + onDisk.length + " bytes"), failed.getMessage());
      assertEquals(3, ShortReadFileSystem.OPENS.get());
    } finally {
      ShortReadFileSystem.SHORT.set(0);
    }
  }
}
