package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command end to end, in-process, on real files; the expected counts come from the raw bytes
 * or text of the files, read here without the runtime.
 */
class CliTest {
  static final Path DATA = Path.of("src/test/resources/data");
  /** The runtime's copy (1.6 MB), not duplicated here; tests run in the module's directory. */
  static final Path MNIST = Path.of("../runtime/src/test/resources/io/mnist");
  static final Path IMAGES = MNIST.resolve("t10k-images-idx3-ubyte.gz");
  static final Path LABELS = MNIST.resolve("t10k-labels-idx1-ubyte.gz");
  static final Path IRIS = DATA.resolve("iris.csv");
  static final Path HDF5 = DATA.resolve("test_chunked_datasets_latest.hdf5");

  @TempDir Path dir;

  /** The result of one command line. */
  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Minibatch.run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
        StandardCharsets.UTF_8), args);
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static byte[] gunzip(Path file) throws IOException {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return in.readAllBytes();
    }
  }

  /** Label value → count, from the idx bytes: an 8-byte header (magic 2049, count), then one byte per label. */
  static Map<Integer, Long> labelCounts() throws IOException {
    byte[] raw = gunzip(LABELS);
    assertEquals(2049, java.nio.ByteBuffer.wrap(raw).getInt(0));
    Map<Integer, Long> counts = new TreeMap<>();
    for (int i = 8; i < raw.length; i++) {
      counts.merge(raw[i] & 0xff, 1L, Long::sum);
    }
    return counts;
  }

  /** The count printed for {@code key} in a histogram line {@code "  key  count  share%  ###"}. */
  static long histogramCount(String out, String key) {
    Matcher m = Pattern.compile("(?m)^  " + Pattern.quote(key) + " +(\\d+) +[\\d.]+%").matcher(out);
    assertTrue(m.find(), "no histogram line for " + key + " in:\n" + out);
    return Long.parseLong(m.group(1));
  }

  @Test
  void inspectMnistImagesShowsShapeCountAndTheClassHistogramOfTheLabelsBeside() throws IOException {
    Run r = run("inspect", IMAGES.toString());
    assertEquals(0, r.code(), r.err());
    byte[] raw = gunzip(IMAGES);
    java.nio.ByteBuffer header = java.nio.ByteBuffer.wrap(raw);
    assertEquals(2051, header.getInt(0));
    assertEquals(10_000, header.getInt(4));
    assertTrue(r.out().contains("magic 2051, MNIST images"), r.out());
    assertTrue(r.out().contains("samples:      " + header.getInt(4) + "\n"), r.out());
    assertTrue(r.out().contains("sample shape: (" + header.getInt(8) + ", " + header.getInt(12) + ")"), r.out());
    assertTrue(r.out().contains("shape:        (10000, 28, 28)"), r.out());
    Map<Integer, Long> counts = labelCounts();
    assertEquals(10, counts.size());
    for (Map.Entry<Integer, Long> e : counts.entrySet()) {
      assertEquals(e.getValue(), histogramCount(r.out(), Integer.toString(e.getKey())), "class " + e.getKey());
    }
    assertEquals(1135L, counts.get(1), "t10k has 1135 ones");
    // The first label, from the raw bytes, is on the first row.
    int first = gunzip(LABELS)[8] & 0xff;
    assertTrue(r.out().contains("#0: label " + first + ", "), r.out());
    assertEquals("", r.err().strip(), "no log lines on stderr");
  }

  @Test
  void inspectIrisDetectsTheHeaderAndTheClassColumn() throws IOException {
    Run r = run("inspect", "--rows", "2", IRIS.toString());
    assertEquals(0, r.code(), r.err());
    List<String> lines = Files.readAllLines(IRIS).stream().filter(l -> !l.isBlank()).toList();
    Map<String, Long> species = new TreeMap<>();
    for (String l : lines.subList(1, lines.size())) {
      species.merge(l.split(",")[4], 1L, Long::sum);
    }
    assertTrue(r.out().contains("header: yes (detected)"), r.out());
    assertTrue(r.out().contains("rows:   " + (lines.size() - 1)), r.out());
    assertTrue(r.out().contains("(150, 4) FLOAT32"), r.out());
    for (Map.Entry<String, Long> e : species.entrySet()) {
      assertEquals(e.getValue(), histogramCount(r.out(), e.getKey()));
    }
    String[] row0 = lines.get(1).split(",");
    assertTrue(r.out().contains("#0: [" + row0[0] + ", " + row0[1] + ", " + row0[2] + ", " + row0[3] + "], label " + row0[4]),
        r.out());
    assertTrue(!r.out().contains("#2:"), "--rows 2 shows two rows");
  }

  @Test
  void inspectHdf5ListsEveryDatasetWithItsShape() {
    Run r = run("inspect", HDF5.toString());
    assertEquals(0, r.code(), r.err());
    // jhdf's test file: h5py wrote np.arange(105).reshape(7, 5, 3) in six types, and np.arange(100) as int8.
    assertTrue(r.out().contains("datasets:       7"), r.out());
    for (String name : List.of("float/float16", "float/float32", "float/float64", "int/int8", "int/int16", "int/int32")) {
      assertTrue(Pattern.compile("(?m)^" + name + ": +\\(7, 5, 3\\) \\w+, 7 samples, min 0, max 104, mean 52$")
          .matcher(r.out()).find(), name + " in\n" + r.out());
    }
    assertTrue(r.out().contains("int/int32:      (7, 5, 3) INT32"), r.out());
    assertTrue(r.out().contains("int/large_int8: (100,) INT8, 100 samples, min 0, max 99, mean 49.5"), r.out());
    assertTrue(!r.out().contains("classes:"), "100 distinct values in 100 samples are not classes");
    assertTrue(r.out().contains("float/float32 #1: [15, 16, 17, 18, 19, 20, 21, 22, ... 15 values]"), r.out());
  }

  @Test
  void validatePassesTheGoodFiles() {
    for (Path f : List.of(IMAGES, LABELS, IRIS, HDF5)) {
      Run r = run("validate", f.toString());
      assertEquals(0, r.code(), r.out() + r.err());
      assertTrue(r.out().contains(f + ": ok"), r.out());
    }
  }

  @Test
  void validateReportsEveryBadCsvLineWithItsLocationAndExitsOne() throws IOException {
    List<String> lines = new java.util.ArrayList<>(Files.readAllLines(IRIS));
    lines.set(4, "4.6,3.1,setosa");                 // line 5: too few fields
    lines.set(9, "4.9,five,1.5,0.1,setosa");        // line 10: not a number
    lines.set(19, "5.1,3.8,1.5,0.3,0.1,setosa");    // line 20: too many fields
    Path bad = dir.resolve("bad.csv");
    Files.write(bad, lines);
    Run r = run("validate", bad.toString());
    assertEquals(1, r.code(), r.out() + r.err());
    List<String> out = r.out().lines().toList();
    assertEquals(4, out.size(), r.out());
    assertTrue(out.get(0).startsWith(bad + ":5: row has 3 fields, expected 5"), r.out());
    assertTrue(out.get(1).startsWith(bad + ":10: column 1 (0-based): cannot parse 'five'"), r.out());
    assertTrue(out.get(2).startsWith(bad + ":20: row has 6 fields, expected 5"), r.out());
    assertEquals(bad + ": 3 problems", out.get(3));

    Run limited = run("validate", "--max-problems", "2", bad.toString());
    assertEquals(1, limited.code());
    assertTrue(limited.out().contains("2 problems (stopped at --max-problems 2)"), limited.out());
  }

  @Test
  void validateNamesATruncatedIdxFile() throws IOException {
    byte[] raw = gunzip(LABELS);
    Path cut = dir.resolve("cut-labels-idx1-ubyte");
    Files.write(cut, java.util.Arrays.copyOf(raw, 8 + 500));
    Run r = run("validate", cut.toString());
    assertEquals(1, r.code(), r.out() + r.err());
    assertTrue(r.out().startsWith(cut + ": "), r.out());
    assertTrue(r.out().contains("declares 10000 uint8 = 10008 bytes") && r.out().contains("found 508 bytes"), r.out());
  }

  @Test
  void benchCountsEverySampleOfEveryEpochAndNamesTheStages() throws IOException {
    Run r = run("bench", "--no-progress", "--warmup", "0", "--epochs", "2", "--batch", "100", IMAGES.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("provider: MnistProvider, data (100, 1, 28, 28) FLOAT32, softmax_label (100,) FLOAT32"),
        r.out());
    // The bytes of batch arrays per epoch, from the idx header: every image's rows x columns pixels
    // and its one label, each a float32 in the batch: 10000 x (28 x 28 + 1) x 4 = 31,400,000 bytes
    // (31.4 MB).
    java.nio.ByteBuffer header = java.nio.ByteBuffer.wrap(gunzip(IMAGES));
    long images = header.getInt(4);
    long bytes = images * (header.getInt(8) * header.getInt(12) + 1) * Float.BYTES;
    assertEquals(31_400_000L, bytes);
    for (int epoch = 1; epoch <= 2; epoch++) {
      Matcher m = Pattern.compile("(?m)^epoch " + epoch + ":  10000 samples in 100 batches \\(31,400,000 bytes\\), ([\\d.]+) s: "
          + "[\\d.]+ [kM]? ?samples/s, ([\\d.]+) MB/s of batches, bottleneck: MnistProvider$").matcher(r.out());
      assertTrue(m.find(), "epoch " + epoch + " in\n" + r.out());
      // The rate is those bytes over the epoch's time, both as printed (3 and 1 decimals).
      double seconds = Double.parseDouble(m.group(1));
      double rate = Double.parseDouble(m.group(2));
      if (seconds >= 0.002) {
        assertTrue(rate >= bytes / 1e6 / (seconds + 0.0005) - 0.05 && rate <= bytes / 1e6 / (seconds - 0.0005) + 0.05,
            rate + " MB/s for " + bytes + " bytes in " + seconds + " s");
      }
    }
    assertTrue(r.out().contains("MnistProvider[1]          100 batches"), r.out());
    assertTrue(r.out().contains("bottleneck: "), r.out());
  }

  @Test
  void benchWithProgressDrawsABarOnStderrAndReadsCsvAndHdf5() {
    Run r = run("bench", "--progress", "--epochs", "1", "--batch", "32", "--shuffle", "--seed", "3", IRIS.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("epoch 1") && r.err().contains("5/5"), r.err());
    assertTrue(r.out().contains("epoch 1:  150 samples in 5 batches"), r.out());
    Run h = run("bench", "--no-progress", "--epochs", "1", "--batch", "4", "--prefetch", HDF5.toString());
    assertEquals(0, h.code(), h.err());
    assertTrue(h.out().contains("epoch 1:  7 samples in 2 batches"), h.out());
    assertTrue(h.out().contains("prefetch[1]"), h.out());
  }

  @Test
  void describeReadsTheGeneratedManifest() throws IOException {
    Run r = run("describe", "dev.minibatch.cli.CliDigit");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("provider:   dev.minibatch.cli.CliDigitProvider"), r.out());
    assertTrue(r.out().contains("batch size: 32 (the annotation's default)"), r.out());
    assertTrue(Pattern.compile("(?m)^image +data +\\(32, 28, 28\\) +FLOAT32 +\\w+ +image$").matcher(r.out()).find(), r.out());
    assertTrue(Pattern.compile("(?m)^softmax_label +label +\\(32,\\) +INT32 +N +label$").matcher(r.out()).find(), r.out());

    // From a directory given with --classpath: a manifest the tool's own class path does not have.
    Path meta = Files.createDirectories(dir.resolve("META-INF/minibatch"));
    try (InputStream in = getClass().getResourceAsStream("/META-INF/minibatch/dev.minibatch.cli.CliDigitProvider.properties")) {
      String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).replace("dev.minibatch.cli.CliDigit",
          "elsewhere.Other");
      Files.writeString(meta.resolve("elsewhere.OtherProvider.properties"), text, StandardCharsets.ISO_8859_1);
    }
    // The entry the processor writes beside a manifest, which leads from the sample's name to it.
    Path samples = Files.createDirectories(meta.resolve("samples"));
    try (InputStream in = getClass().getResourceAsStream("/META-INF/minibatch/samples/dev.minibatch.cli.CliDigit.properties")) {
      String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).replace("dev.minibatch.cli.CliDigit",
          "elsewhere.Other");
      Files.writeString(samples.resolve("elsewhere.Other.properties"), text, StandardCharsets.ISO_8859_1);
    }
    assertEquals(3, run("describe", "elsewhere.Other").code());
    Run other = run("describe", "--classpath", dir.toString(), "--batch", "8", "elsewhere.Other");
    assertEquals(0, other.code(), other.err());
    assertTrue(other.out().contains("(8, 28, 28)"), other.out());
  }

  @Test
  void errorsHaveTheirExitCodes() {
    Run missing = run("inspect", dir.resolve("nothing.csv").toString());
    assertEquals(3, missing.code());
    assertTrue(missing.err().contains("nothing.csv"), missing.err());
    assertEquals(2, run("inspect").code());
    assertEquals(2, run("bench", "--bogus", IRIS.toString()).code());
    Run format = run("inspect", "--format", "parquet", IRIS.toString());
    assertEquals(3, format.code());
    assertTrue(format.err().contains("unknown format 'parquet'; the formats are [idx, hdf5, recordio, shards, folder, lines, csv]"), format.err());
  }

  /** A usage error: exit 2, picocli's message naming {@code option}, then the usage of {@code command}. */
  static void assertUsageError(String command, String option, Run r) {
    assertEquals(2, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(option), option + " in " + r.err());
    assertTrue(r.err().contains("Usage: minibatch " + command), "the usage of " + command + " in " + r.err());
    assertEquals("", r.out());
  }

  @Test
  void everyNumericOptionOutOfRangeIsAUsageErrorWithTheUsage() {
    String iris = IRIS.toString();
    assertUsageError("bench", "--batch", run("bench", "--batch", "0", iris));
    assertUsageError("bench", "--batch", run("bench", "--batch", "-3", iris));
    assertUsageError("bench", "--epochs", run("bench", "--epochs", "0", iris));
    assertUsageError("bench", "--warmup", run("bench", "--warmup", "-1", iris));
    assertUsageError("validate", "--max-problems", run("validate", "--max-problems", "-1", iris));
    assertUsageError("validate", "--max-problems", run("validate", "--max-problems", "0", iris));
    assertUsageError("inspect", "--rows", run("inspect", "--rows", "-5", iris));
    assertUsageError("describe", "--batch", run("describe", "--batch", "0", "dev.minibatch.cli.CliDigit"));
    // The option is checked before the file: a missing file with a bad value is still a usage error.
    assertUsageError("bench", "--batch", run("bench", "--batch", "0", dir.resolve("nothing.csv").toString()));
    // im2rec's settings, checked by Im2Rec's builder before anything is read.
    String prefix = dir.resolve("out/p").toString();
    assertUsageError("im2rec", "threads", run("im2rec", "--num-thread", "0", prefix, dir.toString()));
    assertUsageError("im2rec", "resize", run("im2rec", "--resize", "0", prefix, dir.toString()));
    assertUsageError("im2rec", "color", run("im2rec", "--color", "2", prefix, dir.toString()));
    assertUsageError("im2rec", "quality", run("im2rec", "--quality", "101", prefix, dir.toString()));

    // The smallest values in range are accepted.
    Run rows = run("inspect", "--rows", "0", iris);
    assertEquals(0, rows.code(), rows.err());
    assertTrue(!rows.out().contains("#0:"), rows.out());
    Run one = run("validate", "--max-problems", "1", iris);
    assertEquals(0, one.code(), one.err());
    Run small = run("bench", "--batch", "1", "--epochs", "1", "--warmup", "0", iris);
    assertEquals(0, small.code(), small.err());
    assertTrue(small.out().contains("epoch 1:  150 samples in 150 batches"), small.out());
    Run describe = run("describe", "--batch", "1", "dev.minibatch.cli.CliDigit");
    assertEquals(0, describe.code(), describe.err());
    assertTrue(describe.out().contains("(1, 28, 28)"), describe.out());
  }

  @Test
  void noCommandIsAUsageError() {
    Run none = run();
    assertEquals(2, none.code(), none.out() + none.err());
    assertTrue(none.err().contains("Missing command"), none.err());
    assertTrue(none.err().contains("Usage: minibatch"), none.err());
    assertEquals("", none.out());
    // Only the options of the tool itself, and no command: the same.
    assertEquals(2, run("--verbose").code());
    assertEquals(0, run("--version").code());
  }

  @Test
  void aFormatPluggedInAsAServiceIsDetectedBeforeCsv() throws IOException {
    Path f = dir.resolve("numbers.txt");
    Files.writeString(f, LinesFormat.MAGIC + "\n1\n2\nthree\n4\n5\n");
    Run inspect = run("inspect", f.toString());
    assertEquals(0, inspect.code(), inspect.err());
    assertTrue(inspect.out().contains("format:  lines") && inspect.out().contains("samples: 5"), inspect.out());
    Run validate = run("validate", f.toString());
    assertEquals(1, validate.code());
    assertTrue(validate.out().startsWith(f + ":4: not a number: 'three'"), validate.out());
    Files.writeString(f, LinesFormat.MAGIC + "\n1\n2\n3\n4\n5\n");
    Run bench = run("bench", "--no-progress", "--batch", "2", "--epochs", "1", f.toString());
    assertEquals(0, bench.code(), bench.err());
    assertTrue(bench.out().contains("epoch 1:  5 samples in 3 batches"), bench.out());
  }

  @Test
  void helpTeachesWithExamplesAndExitCodes() {
    Run r = run("--help");
    assertEquals(0, r.code());
    for (String s : List.of("inspect", "validate", "bench", "describe", "Examples:", "Exit codes:", "minibatch inspect t10k")) {
      assertTrue(r.out().contains(s), r.out());
    }
    Run sub = run("help", "validate");
    assertTrue(sub.out().contains("--max-problems") && sub.out().contains("Examples:"), sub.out());
  }

  /** True if {@code s} holds a control character a terminal interprets: ESC (ANSI sequences) or CR. */
  static boolean hasTerminalControls(String s) {
    return s.indexOf('\u001b') >= 0 || s.indexOf('\r') >= 0;
  }

  @Test
  void benchDrawsNoProgressBarWhenItsStreamsAreNotATerminal() {
    // The streams here are byte arrays, as a pipe or a CI log would be: no bar unless forced.
    Run quiet = run("bench", "--epochs", "1", "--batch", "32", IRIS.toString());
    assertEquals(0, quiet.code(), quiet.err());
    assertTrue(!hasTerminalControls(quiet.err()) && !hasTerminalControls(quiet.out()), quiet.err());
    assertEquals("", quiet.err());
    Run forced = run("bench", "--progress", "--epochs", "1", "--batch", "32", IRIS.toString());
    assertEquals(0, forced.code(), forced.err());
    assertTrue(hasTerminalControls(forced.err()), "--progress forces the bar: " + forced.err());
  }

  @Test
  void benchClampsABatchLargerThanTheFileAndSaysSo() throws IOException {
    // The header and the first 24 rows of iris: 24 samples, fewer than the default batch of 128.
    Path small = dir.resolve("iris24.csv");
    Files.write(small, Files.readAllLines(IRIS).subList(0, 25));
    Run r = run("bench", "--warmup", "0", "--epochs", "1", small.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("provider: CsvProvider, data (24, 4) FLOAT32"), r.out());
    assertTrue(r.out().contains("epoch 1:  24 samples in 1 batches"), r.out());
    assertEquals(List.of("minibatch bench: " + small + " holds 24 samples, fewer than --batch 128: measuring batches of 24"),
        r.err().lines().toList());
  }

  @Test
  void benchAndFormatHelpNameRecordIO() {
    Run help = run("bench", "--help");
    assertEquals(0, help.code());
    assertTrue(help.out().contains("ImageRecordProvider for RecordIO"), help.out());
    assertTrue(Pattern.compile("--format=NAME\\s+The format \\(idx, hdf5, recordio, shards, folder,\\s+csv").matcher(help.out()).find(),
        help.out());
  }

  @Test
  void validateFlagsNaNAndInfinitiesWithLineAndColumn() throws IOException {
    // Physical lines, by hand: 1 header, 2 good, 3 NaN in column 1, 4 blank, 5-6 one record whose
    // quoted class name holds a line break, 7 Infinity in column 0 and -Infinity in column 3,
    // 8 a field that is not a number, 9 1e39 (beyond float32) in column 2.
    Path f = dir.resolve("nan.csv");
    Files.writeString(f, "a,b,c,d,species\n"
        + "1,2,3,4,setosa\n"
        + "1,NaN,3,4,setosa\n"
        + "\n"
        + "1,2,3,4,\"two\n"
        + "lines\"\n"
        + "Infinity,2,3,-Infinity,setosa\n"
        + "1,2,x,4,setosa\n"
        + "1,2,1e39,4,setosa\n");
    Run r = run("validate", f.toString());
    assertEquals(1, r.code(), r.out() + r.err());
    assertEquals(List.of(
        f + ":8: column 2 (0-based): cannot parse 'x' as float32",
        f + ":3: column 1 (0-based): expected a finite float32, found NaN",
        f + ":7: column 0 (0-based): expected a finite float32, found Infinity (infinity, or a number beyond the type's range)",
        f + ":7: column 3 (0-based): expected a finite float32, found -Infinity (infinity, or a number beyond the type's range)",
        f + ":9: column 2 (0-based): expected a finite float32, found Infinity (infinity, or a number beyond the type's range)",
        f + ": 5 problems"), r.out().lines().map(l -> l.startsWith(f + ":8:") ? l.substring(0, l.indexOf("float32") + 7) : l)
        .toList());
  }

  @Test
  void validateNamesTheColumnOfANaNAfterAMiddleLabelColumn() throws IOException {
    // Label column 1 (numeric labels): data column 1 is field 2; a NaN label is field 1.
    Path f = dir.resolve("mid.csv");
    Files.writeString(f, "1,0,2\n3,NaN,4\n5,1,NaN\n");
    Run r = run("validate", "--label-column", "1", f.toString());
    assertEquals(1, r.code(), r.out() + r.err());
    assertEquals(List.of(
        f + ":2: column 1 (0-based): expected a finite float32, found NaN",
        f + ":3: column 2 (0-based): expected a finite float32, found NaN",
        f + ": 2 problems"), r.out().lines().toList());
  }
}
