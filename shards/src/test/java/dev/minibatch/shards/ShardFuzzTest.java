package dev.minibatch.shards;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.FuzzChecks;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Fuzzes a shard set's two formats, each through {@link ShardSet#open} and a provider's build and
 * one epoch (batches of 4, every Parquet page decoded and copied into batches). {@code readIndex}:
 * the fuzzed {@code shards.index} beside a fixed, valid shard file. {@code readFile}: the fuzzed
 * Parquet file as the one shard file of a fixed index, whose line for it carries the input's length
 * and CRC-32C, so that the decoder (and not the checksum) meets every mutation. Each input must end
 * in success or a {@code FileFormatException} (or an {@code UncheckedIOException}) naming a file of
 * the set: the index, or the shard file it points at. Seeds: a set of 6 variable-length samples
 * ({@link Ragged}: an INT32 column of 1 to 10 steps, a FLOAT32 column of 2 × 1 to 5 steps, a scalar
 * INT32 label) written by {@link ShardWriter} uncompressed, with Snappy and with Zstandard, and its
 * index in version 1 ({@code shards.index}) and version 2 ({@code shards-v2.index}, columns in
 * {@code SampleSchema} text), under {@code ShardFuzzTestInputs/<method>}. Without {@code JAZZER_FUZZ} this replays the
 * seeds and every committed finding; see docs/bad-input.md to fuzz.
 */
class ShardFuzzTest {
  private static final Path DIR = FuzzChecks.tempDir("shard-fuzz");
  private static final String FILE = "part-00000.parquet";
  /** Where the index is fuzzed: the seed index's own, valid, uncompressed shard file beside it. */
  private static final Path INDEX_SET = DIR.resolve("index-set");
  /** Where the shard file is fuzzed, under the seed index's columns. */
  private static final Path FILE_SET = DIR.resolve("file-set");
  /** The seed index's lines before its file line: the columns and their longest lengths. */
  private static final String COLUMNS;
  /**
   * The most a shard file's bytes may expand to in decoding, per input byte: Zstandard and Snappy
   * pages hold up to this many times their size (a run of one byte), which the reader honestly
   * decodes.
   */
  private static final long EXPANSION = 1 << 12;
  /**
   * Parquet's footer decoder (Thrift's compact protocol) sizes a list by the count the footer
   * claims, checked only against Thrift's message size limit, not the footer's bytes: a 711-byte
   * file (the {@code crash-398a5…} input) made it allocate 27 MB before failing. Not the reader's
   * own allocation, so allowed here; see docs/bad-input.md.
   */
  private static final long FOOTER_ALLOWANCE = 64L << 20;

  static {
    try {
      Files.createDirectories(INDEX_SET);
      Files.createDirectories(FILE_SET);
      Files.write(INDEX_SET.resolve(FILE), seed("readFile/ragged-none.parquet"));
      String index = new String(seed("readIndex/shards.index"), StandardCharsets.UTF_8);
      COLUMNS = index.substring(0, index.indexOf("file\t"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void readIndex(byte[] input) {
    FuzzChecks.write(INDEX_SET.resolve(ShardIndex.NAME), input);
    FuzzChecks.check(location(INDEX_SET), input.length, 1, () -> oneEpoch(INDEX_SET));
  }

  @FuzzTest(maxDuration = "5m")
  void readFile(byte[] input) {
    FuzzChecks.write(FILE_SET.resolve(FILE), input);
    CRC32C crc = new CRC32C();
    crc.update(input);
    String line = "file\t" + FILE + "\t0\t6\t" + input.length + "\t" + String.format("%08x", (int) crc.getValue()) + "\n";
    FuzzChecks.write(FILE_SET.resolve(ShardIndex.NAME), (COLUMNS + line).getBytes(StandardCharsets.UTF_8));
    FuzzChecks.check(location(FILE_SET) + FILE, input.length, EXPANSION, FOOTER_ALLOWANCE, () -> oneEpoch(FILE_SET));
  }

  /** The set's directory as the shard set names its files ({@code file:/…/}). */
  private static String location(Path set) {
    return ShardStore.uri(set.toString()).toString();
  }

  /** Opens the set, builds a provider and reads one epoch, unwrapping a reader thread's format error. */
  private static void oneEpoch(Path set) {
    try {
      FuzzChecks.oneEpoch(ShardSet.open(set.toString()).provider().batchSize(4).lastBatch(LastBatch.PARTIAL).build());
    } catch (StageFailedException e) {
      if (e.getCause() instanceof FileFormatException f) {
        throw f;
      }
      throw e;
    }
  }

  private static byte[] seed(String name) throws IOException {
    try (InputStream in = ShardFuzzTest.class.getResourceAsStream("ShardFuzzTestInputs/" + name)) {
      return Objects.requireNonNull(in, name).readAllBytes();
    }
  }
}
