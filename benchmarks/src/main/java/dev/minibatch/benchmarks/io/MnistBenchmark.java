package dev.minibatch.benchmarks.io;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.mnist.MnistProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.deeplearning4j.datasets.iterator.impl.MnistDataSetIterator;
import org.nd4j.linalg.dataset.DataSet;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * MNIST t10k: load the idx files and run one epoch of batches of 128, minibatch's {@code
 * MnistProvider} against DL4J's {@code MnistDataSetIterator} on the same files. DL4J reads only raw
 * idx files, so they are unzipped into a temporary directory at setup; minibatch is measured on
 * those same raw files (like for like) and on the .gz files (its time then includes decompressing
 * 7.8 MB). The files are found through {@code -Dmnist.dir}, default {@code
 * runtime/src/test/resources/io/mnist} under the working directory or its parent.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class MnistBenchmark {
  private static final int BATCH = 128;

  private Path gzDir;
  private Path rawDir;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    gzDir = BenchFiles.find(System.getProperty("mnist.dir", "runtime/src/test/resources/io/mnist"));
    rawDir = Files.createTempDirectory("mnist-raw");
    for (String name : new String[] {"t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
      try (InputStream in = new GZIPInputStream(Files.newInputStream(gzDir.resolve(name + ".gz")))) {
        Files.copy(in, rawDir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    BenchFiles.deleteTree(rawDir);
  }

  /** Load (gunzip, check, scale) and one epoch, flat images, float32. */
  @Benchmark
  public void minibatchLoadAndEpoch(Blackhole bh) {
    try (MnistProvider p = MnistProvider.builder()
        .image(gzDir.resolve("t10k-images-idx3-ubyte.gz"))
        .label(gzDir.resolve("t10k-labels-idx1-ubyte.gz"))
        .flat(true).batchSize(BATCH).build()) {
      for (NamedBatch b : p) {
        bh.consume(b.get("data"));
      }
    }
  }

  /** Load (check, scale) from the same raw idx files DL4J reads, and one epoch: like for like. */
  @Benchmark
  public void minibatchRawLoadAndEpoch(Blackhole bh) {
    try (MnistProvider p = MnistProvider.builder()
        .image(rawDir.resolve("t10k-images-idx3-ubyte"))
        .label(rawDir.resolve("t10k-labels-idx1-ubyte"))
        .flat(true).batchSize(BATCH).build()) {
      for (NamedBatch b : p) {
        bh.consume(b.get("data"));
      }
    }
  }

  /** DL4J: test set, no binarisation, no shuffle, the same files unzipped. */
  @Benchmark
  public void dl4jLoadAndEpoch(Blackhole bh) throws IOException {
    MnistDataSetIterator it = new MnistDataSetIterator(BATCH, 10000, false, false, false, 0, rawDir.toFile());
    while (it.hasNext()) {
      DataSet ds = it.next();
      bh.consume(ds.getFeatures());
    }
  }
}
