package dev.minibatch.samples.mnist;

import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.weightinit.impl.XavierInitScheme;

/**
 * The network: 784 → 256 (ReLU) → 10, sparse softmax cross-entropy. Its placeholders are named
 * like the provider's arrays ({@code image}, {@code label}), with a free batch dimension.
 */
final class MnistMlp {
  static final String LOGITS = "logits";
  static final String LOSS = "loss";
  private static final int HIDDEN = 256;

  private MnistMlp() {}

  static SameDiff build() {
    SameDiff sd = SameDiff.create();
    SDVariable image = sd.placeHolder("image", DataType.FLOAT, -1, MnistDigit.PIXELS);
    SDVariable label = sd.placeHolder("label", DataType.INT32, -1);
    SDVariable w1 = sd.var("w1", new XavierInitScheme('c', MnistDigit.PIXELS, HIDDEN), DataType.FLOAT, MnistDigit.PIXELS, HIDDEN);
    SDVariable b1 = sd.zero("b1", DataType.FLOAT, HIDDEN);
    SDVariable w2 = sd.var("w2", new XavierInitScheme('c', HIDDEN, 10), DataType.FLOAT, HIDDEN, 10);
    SDVariable b2 = sd.zero("b2", DataType.FLOAT, 10);
    SDVariable hidden = sd.nn().relu(image.mmul(w1).add(b1), 0);
    SDVariable logits = hidden.mmul(w2).add(LOGITS, b2);
    sd.loss().sparseSoftmaxCrossEntropy(LOSS, logits, label);
    return sd;
  }
}
