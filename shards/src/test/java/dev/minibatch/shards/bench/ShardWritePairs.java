package dev.minibatch.shards.bench;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.ShardWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Paired rounds (docs/performance.md, "Writing shards against the machine's write"): per round, in an order that
 * alternates, {@code ShardWriter.write} of an in-memory provider into a new local directory, and the
 * machine's limit for the same bytes: a sequential {@code FileChannel} write of files of the same
 * sizes as the set's (index included) from one reused 1 MiB buffer, into a new directory. Both
 * leave the bytes in the page cache (neither forces them to the device), and both directories are
 * deleted after each round. The ratio of bytes per second is taken within each round; the median
 * and range are printed. Samples: 60 000 MNIST-sized ones (784 float32, a one-hot float32 label of
 * 10), files of 10 000; with {@code image}, 4 000 of 3 x 224 x 224 uint8 and an int32 label, files
 * of 500. Usage: {@code ShardWritePairs [rounds] [mnist|image]}.
 */
public final class ShardWritePairs {
  private static final int BUFFER = 1 << 20;

  private ShardWritePairs() {}

  public static void main(String[] args) throws IOException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    boolean image = args.length > 1 && args[1].equals("image");
    int n = image ? 4_000 : 60_000;
    int perFile = image ? 500 : 10_000;
    INDArray[] xy = ShardPairs.samples(image, n);
    INDArray x = xy[0];
    INDArray y = xy[1];
    System.out.printf("%s: %d samples of %s %s, %d per file%n", image ? "image" : "mnist", n,
        Arrays.toString(x.shape()), x.dataType(), perFile);
    Path root = Files.createTempDirectory("minibatch-shard-write-pairs");
    ShardWriter writer = ShardWriter.builder().samplesPerFile(perFile).build();
    // Batches of 128 as a trainer's: the source's own buffers stay small beside the files.
    try (ArrayDataProvider source = ArrayDataProvider.builder().data(x).label(y).batchSize(128).build()) {
      // Warm-up of both, and the sizes the raw write copies.
      long[] sizes = sizes(shardWrite(writer, source, root.resolve("warm-set")));
      rawWrite(sizes, root.resolve("warm-raw"));
      deleteBelow(root);
      long total = Arrays.stream(sizes).sum();
      System.out.printf("a set of %d files, %d bytes%n", sizes.length, total);
      double[] ratio = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        double shards;
        double raw;
        if (r % 2 == 0) {
          shards = timed(() -> shardWrite(writer, source, root.resolve("set")));
          raw = timed(() -> rawWrite(sizes, root.resolve("raw")));
        } else {
          raw = timed(() -> rawWrite(sizes, root.resolve("raw")));
          shards = timed(() -> shardWrite(writer, source, root.resolve("set")));
        }
        deleteBelow(root);
        double shardRate = total / shards;
        double rawRate = total / raw;
        ratio[r] = shardRate / rawRate;
        System.out.printf("round %d: ShardWriter %.1f MB/s, sequential write %.1f MB/s; ratio %.3f%n", r,
            shardRate / 1e6, rawRate / 1e6, ratio[r]);
      }
      System.out.printf("ShardWriter / sequential write of the same bytes: %s%n", Epochs.summary(ratio));
    } finally {
      deleteBelow(root);
      Files.deleteIfExists(root);
    }
  }

  private static Path shardWrite(ShardWriter writer, ArrayDataProvider source, Path dir) {
    writer.write(source, dir.toString());
    return dir;
  }

  /** The byte sizes of the files in {@code dir}, in name order. */
  private static long[] sizes(Path dir) throws IOException {
    List<Long> sizes = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        sizes.add(Files.size(f));
      }
    }
    return sizes.stream().mapToLong(Long::longValue).toArray();
  }

  /** Files of {@code sizes} bytes written sequentially from one reused buffer: the limit. */
  private static Path rawWrite(long[] sizes, Path dir) {
    try {
      Files.createDirectories(dir);
      ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
      for (int i = 0; i < sizes.length; i++) {
        try (FileChannel out = FileChannel.open(dir.resolve("f" + i), StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE)) {
          long left = sizes[i];
          while (left > 0) {
            buffer.clear().limit((int) Math.min(BUFFER, left));
            while (buffer.hasRemaining()) {
              left -= out.write(buffer);
            }
          }
        }
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double timed(Runnable r) {
    long t = System.nanoTime();
    r.run();
    return (System.nanoTime() - t) / 1e9;
  }

  private static void deleteBelow(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(root)) {
          Files.delete(p);
        }
      }
    }
  }
}
