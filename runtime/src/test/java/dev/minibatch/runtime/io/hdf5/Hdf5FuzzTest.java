package dev.minibatch.runtime.io.hdf5;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.minibatch.runtime.internal.io.GzipContent;
import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.io.FuzzChecks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes the HDF5 reader (listing, path walk through soft links, dataset reads) and {@link
 * Hdf5Provider} (build and one epoch) with one file. Seeds: four files written by h5py for jhdf's
 * tests (earliest and latest formats, chunked, compressed, with soft and hard links) under {@code
 * Hdf5FuzzTestInputs/readAndProvide}. Without {@code JAZZER_FUZZ} this replays the seeds and every
 * committed finding; see docs/bad-input.md to fuzz.
 */
class Hdf5FuzzTest {
  private static final Path DIR = FuzzChecks.tempDir("hdf5-fuzz");
  private static int inputs;

  /** Paths of the seed files, links among them, so that mutations of their links are walked. */
  private static final List<String> KNOWN = List.of("links_group/soft_link_to_int8", "links_group/soft_link_to_group/int16",
      "links_group/hard_link_to_int8", "float/float32", "int/int16");

  @FuzzTest(maxDuration = "5m")
  void readAndProvide(byte[] input) throws IOException {
    // A new file per input: jhdf decodes chunks on the common pool and, after a failure, tasks of
    // the last input may still read its mapping; rewriting that file in place would fault them.
    Path file = FuzzChecks.write(DIR.resolve("fuzzed-" + inputs++ + ".hdf5"), input);
    try {
      readAndProvide(file, input.length);
    } finally {
      Files.delete(file);
    }
  }

  private static void readAndProvide(Path file, int length) {
    // Each step is checked on its own, so that a failure of one does not hide the later ones.
    List<List<String>> found = new ArrayList<>();
    FuzzChecks.check(file, length, GzipContent.MAX_RATIO, () -> found.add(Hdf5Reader.datasets(file)));
    List<String> all = found.isEmpty() ? List.of() : found.get(0);
    List<String> datasets = all.subList(0, Math.min(3, all.size()));
    for (String name : datasets) {
      FuzzChecks.check(file, length, GzipContent.MAX_RATIO, () -> Hdf5Reader.read(file, name));
    }
    for (String name : KNOWN) {
      FuzzChecks.check(file, length, GzipContent.MAX_RATIO, () -> Hdf5Reader.read(file, name));
    }
    if (!datasets.isEmpty()) {
      String first = datasets.get(0);
      FuzzChecks.check(file, length, GzipContent.MAX_RATIO, () -> FuzzChecks.oneEpoch(Hdf5Provider.builder()
          .add(file, List.of(first), "a").add(file, List.of(first), "b").oneHot(true).batchSize(3).build()));
    }
  }
}
