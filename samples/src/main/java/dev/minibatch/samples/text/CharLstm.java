package dev.minibatch.samples.text;

import dev.minibatch.runtime.interop.SameDiffBinding;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ops.impl.layers.recurrent.config.LSTMActivations;
import org.nd4j.linalg.api.ops.impl.layers.recurrent.config.LSTMDataFormat;
import org.nd4j.linalg.api.ops.impl.layers.recurrent.config.LSTMDirectionMode;
import org.nd4j.linalg.api.ops.impl.layers.recurrent.config.LSTMLayerConfig;
import org.nd4j.linalg.api.ops.impl.layers.recurrent.weights.LSTMLayerWeights;
import org.nd4j.weightinit.impl.XavierInitScheme;

/**
 * A character-level LSTM language model in SameDiff (MXNet.jl's char-LSTM tutorial, one layer):
 * one-hot characters, an LSTM over the steps, a softmax over the next character. The batch's time
 * axis varies from batch to batch, so every placeholder is {@code [-1, -1]}; the loss is the mean
 * cross-entropy over the real steps only, weighted by the label mask ({@code next_mask}), so
 * padding teaches the model nothing. Padding comes after a line's real steps, and the LSTM runs
 * forward, so the real steps' outputs never see it.
 */
public final class CharLstm {
  /** The loss variable: mean cross-entropy per real step. */
  public static final String LOSS = "loss";

  private CharLstm() {}

  /** A model over {@code vocabulary} ids with {@code hidden} LSTM units. */
  public static SameDiff build(int vocabulary, int hidden) {
    SameDiff sd = SameDiff.create();
    SDVariable chars = sd.placeHolder("chars", DataType.INT32, -1, -1);
    SDVariable next = sd.placeHolder("next", DataType.INT32, -1, -1);
    SDVariable mask = sd.placeHolder(SameDiffBinding.maskName("next"), DataType.FLOAT, -1, -1);

    SDVariable x = sd.oneHot("x", chars, vocabulary).castTo(DataType.FLOAT);
    LSTMLayerWeights weights = LSTMLayerWeights.builder()
        .weights(sd.var("lstmW", new XavierInitScheme('c', vocabulary, 4 * hidden), DataType.FLOAT, vocabulary, 4 * hidden))
        .rWeights(sd.var("lstmR", new XavierInitScheme('c', hidden, 4 * hidden), DataType.FLOAT, hidden, 4 * hidden))
        .bias(sd.zero("lstmB", DataType.FLOAT, 4 * hidden))
        .build();
    LSTMLayerConfig config = LSTMLayerConfig.builder()
        .lstmdataformat(LSTMDataFormat.NTS)
        .directionMode(LSTMDirectionMode.FWD)
        .gateAct(LSTMActivations.SIGMOID)
        .cellAct(LSTMActivations.TANH)
        .outAct(LSTMActivations.TANH)
        .retFullSequence(true)
        .retLastH(false)
        .retLastC(false)
        .build();
    SDVariable h = sd.rnn().lstmLayer(x, weights, config)[0];

    // Every step of every line as one row: [batch * T, hidden] -> [batch * T, vocabulary].
    SDVariable rows = sd.reshape(h, -1, hidden);
    SDVariable w = sd.var("outW", new XavierInitScheme('c', hidden, vocabulary), DataType.FLOAT, hidden, vocabulary);
    SDVariable b = sd.zero("outB", DataType.FLOAT, vocabulary);
    SDVariable logits = rows.mmul(w).add(b);
    SDVariable logp = sd.nn().logSoftmax(logits);
    SDVariable target = sd.oneHot(sd.reshape(next, -1), vocabulary).castTo(DataType.FLOAT);
    SDVariable stepLoss = target.mul(logp).sum(1).neg();
    SDVariable real = sd.reshape(mask, -1);
    SDVariable loss = stepLoss.mul(real).sum().div(real.sum());
    sd.updateVariableNameAndReference(loss, LOSS);
    sd.setLossVariables(LOSS);
    return sd;
  }
}
