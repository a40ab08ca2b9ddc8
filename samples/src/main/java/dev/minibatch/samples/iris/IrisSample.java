package dev.minibatch.samples.iris;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.interop.ProviderIterators;
import dev.minibatch.runtime.interop.SameDiffBinding;
import dev.minibatch.runtime.io.csv.CsvFormat;
import dev.minibatch.runtime.io.csv.CsvTable;
import dev.minibatch.samples.SameDiffGradients;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.TrainingConfig;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;

/**
 * Reads the bundled iris.csv — a header row, four measurements, the species as text — with the
 * byte-level CSV parser (species names become class indices 0, 1, 2 in order of appearance),
 * holds out every fifth flower, and trains a tiny network (4-16-3) with SameDiff.
 */
public final class IrisSample {
  private IrisSample() {}

  /**
   * The parsed table: 150 rows, 4 float columns, labels 0–2.
   *
   * @throws UncheckedIOException if the bundled file cannot be read
   */
  public static CsvTable load() {
    try (InputStream in = IrisSample.class.getResourceAsStream("/iris/iris.csv")) {
      if (in == null) {
        throw new IllegalStateException("the bundled /iris/iris.csv is missing from the classpath");
      }
      CsvFormat format = CsvFormat.builder().header(true).labelColumn(4).classLabels(true).build();
      return CsvTable.parse("classpath:/iris/iris.csv", in.readAllBytes(), format, 5);
    } catch (IOException e) {
      throw new UncheckedIOException("reading /iris/iris.csv", e);
    }
  }

  /** Trains for {@code epochs} epochs and returns the accuracy on the 30 held-out flowers. */
  public static double trainAndTest(int epochs, long seed) {
    CsvTable t = load();
    int n = t.rows();
    INDArray x = t.data().toINDArray(n, 4);
    INDArray y = java.util.Objects.requireNonNull(t.labels(), "iris has a label column").toINDArray(n, 1).castTo(DataType.INT32);
    // Every fifth flower is held out: 10 of each species, because the file lists them by species.
    int[] test = java.util.stream.IntStream.range(0, n).filter(i -> i % 5 == 0).toArray();
    int[] train = java.util.stream.IntStream.range(0, n).filter(i -> i % 5 != 0).toArray();
    // Standardise with the training rows' statistics.
    INDArray xTrain = x.getRows(train);
    INDArray mean = xTrain.mean(0);
    INDArray std = xTrain.std(0);
    INDArray xs = x.subRowVector(mean).divRowVector(std);

    Nd4j.getRandom().setSeed(seed);
    SameDiff sd = SameDiff.create();
    SDVariable in = sd.placeHolder("features", DataType.FLOAT, -1, 4);
    SDVariable label = sd.placeHolder("species", DataType.INT32, -1);
    SDVariable w1 = sd.var("w1", Nd4j.randn(DataType.FLOAT, 4, 16).muli(0.5));
    SDVariable b1 = sd.zero("b1", DataType.FLOAT, 16);
    SDVariable hidden = sd.nn().relu(in.mmul(w1).add(b1), 0);
    SDVariable w2 = sd.var("w2", Nd4j.randn(DataType.FLOAT, 16, 3).muli(0.3));
    SDVariable b2 = sd.zero("b2", DataType.FLOAT, 3);
    SDVariable logits = hidden.mmul(w2).add("logits", b2);
    sd.loss().sparseSoftmaxCrossEntropy("loss", logits, label);

    try (ArrayDataProvider trainSet = ArrayDataProvider.builder()
            .data("features", xs.getRows(train)).label("species", y.getRows(train).reshape(train.length))
            .batchSize(20).shuffle(true).seed(seed).build();
        ArrayDataProvider testSet = ArrayDataProvider.builder()
            .data("features", xs.getRows(test)).label("species", y.getRows(test).reshape(test.length))
            .batchSize(0).build()) {
      sd.setTrainingConfig(SameDiffBinding.bind(TrainingConfig.builder().updater(new Adam(0.05)), trainSet, sd).build());
      SameDiffGradients.createQuietly(sd);
      sd.fit(ProviderIterators.multiDataSet(trainSet), epochs);
      NamedBatch all = testSet.iterator().next();
      INDArray predicted = sd.batchOutput().input("features", all.get("features")).output("logits").outputSingle().argMax(1);
      INDArray truth = all.get("species");
      int correct = 0;
      for (int i = 0; i < all.countSamples(); i++) {
        if (predicted.getLong(i) == truth.getLong(i)) {
          correct++;
        }
      }
      return (double) correct / all.countSamples();
    }
  }

  /** Prints the held-out accuracy after 100 epochs. */
  public static void main(String[] args) {
    int epochs = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    System.out.printf("iris: held-out accuracy after %d epochs: %.1f%% (30 flowers)%n", epochs, 100 * trainAndTest(epochs, 1));
  }
}
