package dev.minibatch.benchmarks.io;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.csv.CsvFormat;
import dev.minibatch.runtime.io.csv.CsvProvider;
import dev.minibatch.runtime.io.csv.CsvTable;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.datavec.api.records.reader.impl.csv.CSVRecordReader;
import org.datavec.api.split.FileSplit;
import org.deeplearning4j.datasets.datavec.RecordReaderDataSetIterator;
import org.nd4j.linalg.dataset.DataSet;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * CSV of {@code rows} x (784 features + 1 label) short decimals ("0.123", "0", like scaled MNIST
 * pixels; ~3.9 KB a row), generated into a temporary file at setup; batches of 128, label column
 * 784, 10 classes. minibatch's parser and {@code CsvProvider} against DataVec's {@code
 * CSVRecordReader} + {@code RecordReaderDataSetIterator} in the same run. Divide the file size
 * (printed at setup) by the time for MB/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class CsvBenchmark {
  private static final int FEATURES = 784;
  private static final int BATCH = 128;

  /** Rows in the generated file; the figure is 100000 (~390 MB). */
  @Param({"100000"})
  public int rows;

  private Path dir;
  private Path file;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("csv-bench");
    file = dir.resolve("data.csv");
    SplittableRandom rnd = new SplittableRandom(1);
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      StringBuilder sb = new StringBuilder(8192);
      for (int r = 0; r < rows; r++) {
        sb.setLength(0);
        for (int c = 0; c < FEATURES; c++) {
          int v = rnd.nextInt(1000);
          if (v < 300) {
            sb.append('0');
          } else {
            sb.append("0.").append(v);
          }
          sb.append(',');
        }
        sb.append(rnd.nextInt(10)).append('\n');
        w.append(sb);
      }
    }
    System.out.printf("%n[setup] %s: %d rows, %.1f MB%n", file, rows, Files.size(file) / 1e6);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    BenchFiles.deleteTree(dir);
  }

  /** The parser alone: bytes to float32 table (all cores). */
  @Benchmark
  public CsvTable minibatchParse() {
    return CsvTable.parse(file, CsvFormat.builder().labelColumn(FEATURES).build());
  }

  /** The parser on one thread. */
  @Benchmark
  public CsvTable minibatchParseOneThread() {
    return CsvTable.parse(file, CsvFormat.builder().labelColumn(FEATURES).threads(1).build());
  }

  /** Parse, build the provider, one epoch of batches of 128. */
  @Benchmark
  public void minibatchProviderEpoch(Blackhole bh) {
    try (CsvProvider p = CsvProvider.builder().dataFile(file).dataShape(FEATURES)
        .format(f -> f.labelColumn(FEATURES)).batchSize(BATCH).build()) {
      for (NamedBatch b : p) {
        bh.consume(b.get("data"));
      }
    }
  }

  /** DataVec: CSVRecordReader + RecordReaderDataSetIterator (label 784, 10 classes), one epoch. */
  @Benchmark
  public void datavecEpoch(Blackhole bh) throws Exception {
    try (CSVRecordReader rr = new CSVRecordReader(0, ',')) {
      rr.initialize(new FileSplit(file.toFile()));
      RecordReaderDataSetIterator it = new RecordReaderDataSetIterator(rr, BATCH, FEATURES, 10);
      while (it.hasNext()) {
        DataSet ds = it.next();
        bh.consume(ds.getFeatures());
      }
    }
  }
}
