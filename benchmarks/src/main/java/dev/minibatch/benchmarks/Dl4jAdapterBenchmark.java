package dev.minibatch.benchmarks;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.interop.ProviderIterators;
import java.util.concurrent.TimeUnit;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the DL4J adapter's default costs: every batch copied out of the provider's reused buffers
 * ({@code ProviderIterators.dataSet(p, oneHot)}, detached) against views of them ({@code
 * detach(false)}), on one epoch of MNIST-test-sized data — 10 000 samples of 784 float32 with a
 * class index made one-hot over 10 classes, batches of 64 (157 batches, the shape). Read
 * alone, then under what the batches are for: one epoch of {@code MultiLayerNetwork.fit} on a
 * 784-128-10 softmax network, the test's and docs' network. The score is samples per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(Dl4jAdapterBenchmark.N)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@State(Scope.Benchmark)
public class Dl4jAdapterBenchmark {
  static final int N = 10_000;
  static final int FEATURES = 784;
  static final int CLASSES = 10;
  static final int BATCH = 64;

  // One provider per iterator: an adapter keeps its provider's epoch open between calls.
  private ArrayDataProvider detachedData;
  private ArrayDataProvider viewData;
  private DataSetIterator detached;
  private DataSetIterator views;
  private MultiLayerNetwork net;

  /** Random features, class i % 10, the same values behind both adapters; a fresh network. */
  @Setup(Level.Trial)
  public void setUp() {
    INDArray x = Nd4j.rand(DataType.FLOAT, N, FEATURES);
    int[] y = new int[N];
    for (int i = 0; i < N; i++) {
      y[i] = i % CLASSES;
    }
    detachedData = ArrayDataProvider.builder().data("x", x).label("y", y).batchSize(BATCH).build();
    viewData = ArrayDataProvider.builder().data("x", x).label("y", y).batchSize(BATCH).build();
    detached = ProviderIterators.dataSet(detachedData, ProviderIterators.Options.builder().oneHot(CLASSES).build());
    views = ProviderIterators.dataSet(viewData, ProviderIterators.Options.builder().oneHot(CLASSES).detach(false).build());
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
        .seed(7)
        .updater(new Adam(1e-3))
        .weightInit(WeightInit.XAVIER)
        .list()
        .layer(new DenseLayer.Builder().nIn(FEATURES).nOut(128).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(128).nOut(CLASSES)
            .activation(Activation.SOFTMAX).build())
        .build();
    net = new MultiLayerNetwork(conf);
    net.init();
  }

  /** Frees the providers' buffers. */
  @TearDown(Level.Trial)
  public void tearDown() {
    detachedData.close();
    viewData.close();
  }

  /** One epoch of detached batches (the default): each a copy outside workspaces. */
  @Benchmark
  public void readDetached(Blackhole bh) {
    readEpoch(detached, bh);
  }

  /** One epoch of views of the provider's reused buffers ({@code detach(false)}). */
  @Benchmark
  public void readViews(Blackhole bh) {
    readEpoch(views, bh);
  }

  /** One training epoch on detached batches. */
  @Benchmark
  public void fitDetached() {
    net.fit(detached);
  }

  /** One training epoch on views. */
  @Benchmark
  public void fitViews() {
    net.fit(views);
  }

  private static void readEpoch(DataSetIterator it, Blackhole bh) {
    while (it.hasNext()) {
      bh.consume(it.next());
    }
    it.reset();
  }
}
