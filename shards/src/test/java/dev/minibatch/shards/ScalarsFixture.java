package dev.minibatch.shards;

import dev.minibatch.runtime.array.ArrayDataProvider;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The samples of the scalar-columns sets, by construction: sample {@code i} of {@link #N} has data
 * {@code x = [i, -i]} float32 and the scalars {@code label = i mod 3} int32, {@code weight = i / 4}
 * float64, {@code big = i * 10^10} int64, {@code small = i - 6} int8, {@code short16 = i * 1000 - 6000}
 * int16, {@code byte8 = 250 - i} uint8, {@code flag = i odd} bool, {@code score = i / 8} float32.
 */
final class ScalarsFixture {
  static final int N = 12;

  private ScalarsFixture() {}

  static ArrayDataProvider provider() {
    float[][] x = new float[N][2];
    int[] label = new int[N];
    double[] weight = new double[N];
    long[] big = new long[N];
    byte[] small = new byte[N];
    short[] short16 = new short[N];
    int[] byte8 = new int[N];
    boolean[] flag = new boolean[N];
    float[] score = new float[N];
    for (int i = 0; i < N; i++) {
      x[i][0] = i;
      x[i][1] = -i;
      label[i] = i % 3;
      weight[i] = i / 4.0;
      big[i] = i * 10_000_000_000L;
      small[i] = (byte) (i - 6);
      short16[i] = (short) (i * 1000 - 6000);
      byte8[i] = 250 - i;
      flag[i] = i % 2 == 1;
      score[i] = i / 8f;
    }
    return ArrayDataProvider.builder().data("x", Nd4j.create(x))
        .label("label", Nd4j.createFromArray(label))
        .label("weight", Nd4j.createFromArray(weight))
        .label("big", Nd4j.createFromArray(big))
        .label("small", Nd4j.createFromArray(small))
        .label("short16", Nd4j.createFromArray(short16))
        .label("byte8", Nd4j.createFromArray(byte8).castTo(DataType.UINT8))
        .label("flag", Nd4j.createFromArray(flag))
        .label("score", Nd4j.createFromArray(score))
        .batchSize(5).build();
  }
}
