package dev.minibatch.samples.text;

import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.weightinit.impl.XavierInitScheme;

/**
 * A one-layer transformer language model in SameDiff for packed rows: token and position
 * embeddings, one head of causal self-attention restricted to the token's own segment, a ReLU
 * feed-forward block, both with residuals, and a softmax over the next token. Every placeholder has
 * a free batch axis (the epoch's last batch has fewer rows):
 *
 * <ul>
 *   <li>{@code ids} INT32 {@code [rows, L]}: the token ids (of the compact vocabulary);
 *   <li>{@code positions} INT32 {@code [rows, L]}: the position ids, restarting at every document, so
 *       a document reads the same whatever its place in the row;
 *   <li>{@code attention} FLOAT {@code [rows, L, L]}: 0 where position {@code i} may attend to
 *       {@code j} (the same segment, {@code j <= i}), {@link #BLOCKED} elsewhere, so no document
 *       sees another packed into the same row ({@link #attention});
 *   <li>{@code next} INT32 {@code [rows, L]}: the next token of the same document (any id where none);
 *   <li>{@code weight} FLOAT {@code [rows, L]}: 1 where the loss counts (a real token with a next
 *       token: the row's loss mask times "has a label"), 0 on padding and after a document's last token.
 * </ul>
 *
 * <p>The loss is the mean cross-entropy over the positions of weight 1: padding counts for nothing.
 */
public final class PackedLm {
  /** The loss variable: mean cross-entropy per counted token, in nats. */
  public static final String LOSS = "loss";
  /** The attention bias of a blocked pair: far below any score, so its softmax weight is 0. */
  public static final float BLOCKED = -1e9f;

  private PackedLm() {}

  /** A model over {@code vocabulary} ids, rows of {@code length} positions, {@code width} units. */
  public static SameDiff build(int vocabulary, int length, int width) {
    SameDiff sd = SameDiff.create();
    SDVariable ids = sd.placeHolder("ids", DataType.INT32, -1, length);
    SDVariable positions = sd.placeHolder("positions", DataType.INT32, -1, length);
    SDVariable attention = sd.placeHolder("attention", DataType.FLOAT, -1, length, length);
    SDVariable next = sd.placeHolder("next", DataType.INT32, -1, length);
    SDVariable weight = sd.placeHolder("weight", DataType.FLOAT, -1, length);

    SDVariable tokens = sd.var("tokenEmbedding", new XavierInitScheme('c', vocabulary, width), DataType.FLOAT,
        vocabulary, width);
    SDVariable places = sd.var("positionEmbedding", new XavierInitScheme('c', length, width), DataType.FLOAT,
        length, width);
    // One-hot rows times the tables ([rows * L, vocabulary] x [vocabulary, width]): SameDiff 1.0.0-M2.1
    // cannot differentiate two gathers in one graph (their gradients' loops get the same name).
    SDVariable tokenRows = sd.reshape(sd.oneHot(ids, vocabulary).castTo(DataType.FLOAT), -1, vocabulary).mmul(tokens);
    SDVariable placeRows = sd.reshape(sd.oneHot(positions, length).castTo(DataType.FLOAT), -1, length).mmul(places);
    SDVariable h = sd.reshape(tokenRows.add(placeRows), -1, length, width);

    SDVariable q = dense(sd, "query", h, width, width, length, false);
    SDVariable k = dense(sd, "key", h, width, width, length, false);
    SDVariable v = dense(sd, "value", h, width, width, length, false);
    SDVariable scores = sd.mmul(q, k, false, true, false).mul(1.0 / Math.sqrt(width)).add(attention);
    SDVariable attended = sd.mmul(sd.nn().softmax(scores, 2), v);
    h = h.add(dense(sd, "mix", attended, width, width, length, false));
    SDVariable hidden = dense(sd, "up", h, width, 2 * width, length, true);
    h = h.add(dense(sd, "down", hidden, 2 * width, width, length, false));

    // Every position as one row: [rows * L, vocabulary].
    SDVariable logits = dense(sd, "out", h, width, vocabulary, length, false);
    // log p = (z - max z) - log(sum exp(z - max z)): finite where a probability underflows, so that the
    // zeros of the one-hot target never multiply a -infinity (0 · -inf is NaN) once the model is
    // confident, as logSoftmax's log of an underflowed softmax does (and SameDiff 1.0.0-M2.1's
    // logSumExp has no working gradient).
    SDVariable z = sd.reshape(logits, -1, vocabulary);
    SDVariable shifted = z.sub(z.max(true, 1));
    SDVariable logp = shifted.sub(sd.math().log(sd.math().exp(shifted).sum(true, 1)));
    SDVariable target = sd.oneHot(sd.reshape(next, -1), vocabulary).castTo(DataType.FLOAT);
    SDVariable nll = target.mul(logp).sum(1).neg();
    SDVariable counted = sd.reshape(weight, -1);
    // At least 1 in the denominator: a batch can hold no counted token (a short last batch of a
    // row of empty lines' separators), whose loss is then 0, not 0/0.
    SDVariable loss = nll.mul(counted).sum().div(sd.math().max(counted.sum(), sd.constant(1f)));
    sd.updateVariableNameAndReference(loss, LOSS);
    sd.setLossVariables(LOSS);
    return sd;
  }

  /** {@code x W + b} over the last axis of a {@code [rows, L, in]} tensor, ReLU'd if asked. */
  private static SDVariable dense(SameDiff sd, String name, SDVariable x, int in, int out, int length, boolean relu) {
    SDVariable w = sd.var(name + "W", new XavierInitScheme('c', in, out), DataType.FLOAT, in, out);
    SDVariable b = sd.zero(name + "B", DataType.FLOAT, out);
    SDVariable y = sd.reshape(x, -1, in).mmul(w).add(b);
    if (relu) {
      y = sd.nn().relu(y, 0);
    }
    return sd.reshape(y, -1, length, out);
  }

  /**
   * The attention bias of rows with these segment ids ({@code [rows][L]}, 0 for padding): 0 where
   * {@code i} may attend to {@code j} (the same segment, {@code j <= i}), {@link #BLOCKED} elsewhere.
   * A padded position attends to itself only, so its softmax stays defined; its loss weight is 0.
   */
  public static float[][][] attention(int[][] segments) {
    int rows = segments.length;
    int length = rows == 0 ? 0 : segments[0].length;
    float[][][] bias = new float[rows][length][length];
    for (int r = 0; r < rows; r++) {
      int[] s = segments[r];
      for (int i = 0; i < length; i++) {
        for (int j = 0; j < length; j++) {
          boolean open = s[i] == 0 ? i == j : j <= i && s[j] == s[i];
          bias[r][i][j] = open ? 0f : BLOCKED;
        }
      }
    }
    return bias;
  }
}
