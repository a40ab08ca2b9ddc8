package dev.minibatch.samples.images;

import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ops.impl.layers.convolution.config.Conv2DConfig;
import org.nd4j.linalg.api.ops.impl.layers.convolution.config.PaddingMode;
import org.nd4j.linalg.api.ops.impl.layers.convolution.config.Pooling2DConfig;
import org.nd4j.weightinit.impl.XavierInitScheme;

/**
 * A small convolutional network for 28×28 digits: conv 3×3 (8) → ReLU → max-pool 2 → conv 3×3 (16)
 * → ReLU → max-pool 2 → dense 10, sparse softmax cross-entropy. Its placeholders are named like
 * ImageRecordProvider's arrays: {@code data} (NCHW) and {@code softmax_label} (float, as MXNet).
 */
final class DigitCnn {
  static final String LOGITS = "logits";
  static final String LOSS = "loss";

  private DigitCnn() {}

  static SameDiff build() {
    SameDiff sd = SameDiff.create();
    SDVariable data = sd.placeHolder("data", DataType.FLOAT, -1, 1, 28, 28);
    SDVariable label = sd.placeHolder("softmax_label", DataType.FLOAT, -1);
    SDVariable x = conv(sd, "c1", data, 1, 8);
    x = conv(sd, "c2", x, 8, 16);
    SDVariable flat = x.reshape(-1, 16 * 7 * 7);
    SDVariable w = sd.var("w3", new XavierInitScheme('c', 16 * 7 * 7, 10), DataType.FLOAT, 16 * 7 * 7, 10);
    SDVariable b = sd.zero("b3", DataType.FLOAT, 10);
    SDVariable logits = flat.mmul(w).add(LOGITS, b);
    sd.loss().sparseSoftmaxCrossEntropy(LOSS, logits, label.castTo(DataType.INT32));
    return sd;
  }

  /** Same-padded 3×3 convolution, ReLU, 2×2 max-pooling: halves height and width. */
  private static SDVariable conv(SameDiff sd, String name, SDVariable in, int inChannels, int outChannels) {
    SDVariable w = sd.var(name + "w", new XavierInitScheme('c', 9 * inChannels, 9 * outChannels), DataType.FLOAT,
        3, 3, inChannels, outChannels);
    SDVariable b = sd.zero(name + "b", DataType.FLOAT, outChannels);
    Conv2DConfig conv = Conv2DConfig.builder().kH(3).kW(3).sH(1).sW(1).paddingMode(PaddingMode.SAME).dataFormat("NCHW").build();
    SDVariable y = sd.nn().relu(sd.cnn().conv2d(in, w, b, conv), 0);
    return sd.cnn().maxPooling2d(y, Pooling2DConfig.builder().kH(2).kW(2).sH(2).sW(2).isNHWC(false).build());
  }
}
