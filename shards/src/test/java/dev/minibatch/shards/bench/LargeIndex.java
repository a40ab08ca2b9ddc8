package dev.minibatch.shards.bench;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Opening a large set (docs/performance.md, "Opening a large set"): an index of {@code files} (default
 * 100 000) file lines of 1 000 samples each (10^8 samples), written as text; every line names the one
 * real file of 1 000 samples (4 float32 each) with its length and CRC-32C, so any file a shuffled first
 * batch needs exists. Per round, a new provider (batch 256, shuffle, seed) is built and its first batch
 * taken; the time from {@code builder(...)} to the first batch is printed, with the build and the heap
 * used after it. Usage: {@code LargeIndex [rounds] [files]}.
 */
public final class LargeIndex {
  private LargeIndex() {}

  public static void main(String[] args) throws IOException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int files = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    int perFile = 1_000;
    Path dir = Files.createTempDirectory("minibatch-large-index");
    String set = dir.resolve("set").toString();
    try (ArrayDataProvider one = ArrayDataProvider.builder().data("x", Nd4j.rand(perFile, 4)).batchSize(perFile).build()) {
      ShardWriter.builder().samplesPerFile(perFile).build().write(one, set);
    }
    Path index = dir.resolve("set").resolve("shards.index");
    List<String> lines = Files.readAllLines(index, StandardCharsets.UTF_8);
    String file = lines.stream().filter(l -> l.startsWith("file\t")).findFirst().orElseThrow();
    String[] f = file.split("\t");
    StringBuilder text = new StringBuilder();
    lines.stream().filter(l -> !l.startsWith("file\t")).forEach(l -> text.append(l).append('\n'));
    for (long i = 0; i < files; i++) {
      text.append("file\t").append(f[1]).append('\t').append(i * perFile).append('\t').append(perFile).append('\t')
          .append(f[4]).append('\t').append(f[5]).append('\n');
    }
    Files.writeString(index, text, StandardCharsets.UTF_8);
    System.out.printf("index: %d files, %d samples, %.1f MB of text%n", files, (long) files * perFile,
        Files.size(index) / 1e6);
    for (int r = 0; r < rounds; r++) {
      System.gc();
      long t0 = System.nanoTime();
      try (ShardProvider p = ShardProvider.builder(set).batchSize(256).shuffle(true).seed(r).build()) {
        long built = System.nanoTime();
        Iterator<NamedBatch> it = p.iterator();
        NamedBatch b = it.next();
        long first = System.nanoTime();
        Runtime rt = Runtime.getRuntime();
        System.out.printf("round %d: build %.3f s, first batch %.3f s after build, %.3f s in all (%d rows); heap used %d MB%n",
            r, (built - t0) / 1e9, (first - built) / 1e9, (first - t0) / 1e9, b.rows(),
            (rt.totalMemory() - rt.freeMemory()) >> 20);
      }
    }
  }
}
