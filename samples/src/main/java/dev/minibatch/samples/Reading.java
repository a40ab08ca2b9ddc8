package dev.minibatch.samples;

import dev.minibatch.DType;
import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A JavaBean-style sample: private fields with getters, a flat array for a 2×3 shape, bytes stored
 * as UINT8, a boolean mask widened to float, an INDArray member and a float label.
 */
@DataProvider
public final class Reading {
  private final float[] grid;
  private final byte[] raw;
  private final boolean[] mask;
  private final INDArray embedding;
  private final int target;

  /** A reading. */
  public Reading(float[] grid, byte[] raw, boolean[] mask, INDArray embedding, int target) {
    this.grid = grid;
    this.raw = raw;
    this.mask = mask;
    this.embedding = embedding;
    this.target = target;
  }

  /** Six values, row-major (2, 3). */
  @Provides(shape = {2, 3})
  public float[] getGrid() {
    return grid;
  }

  /** Raw bytes, delivered as unsigned. */
  @Provides(shape = {2}, dtype = DType.UINT8)
  public byte[] getRaw() {
    return raw;
  }

  /** A mask, delivered as 0/1 floats. */
  @Provides(shape = {2}, dtype = DType.FLOAT32)
  public boolean[] getMask() {
    return mask;
  }

  /** An embedding computed elsewhere. */
  @Provides(shape = {4})
  public INDArray getEmbedding() {
    return embedding;
  }

  /** The target, as float for a regression loss. */
  @Provides(label = true, dtype = DType.FLOAT32)
  public int getTarget() {
    return target;
  }
}
