package dev.minibatch.spark;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * A test sample: a 2×3 float matrix whose first element is the point's id, and the id as label,
 * so every batch's label array reads as the ids of its samples. Serializable: a {@code JavaRDD<Point>}
 * ships its records with Java serialization.
 *
 * @param x the matrix, {@code x[0][0] == id}
 * @param y the id
 */
@DataProvider
public record Point(@Provides(shape = {2, 3}) float[][] x, @Provides(label = true) int y) implements java.io.Serializable {
  /** The point with id {@code id}: x = id, id + 0.5, ... row-major; y = id. */
  static Point of(int id) {
    float[][] x = new float[2][3];
    for (int r = 0; r < 2; r++) {
      for (int c = 0; c < 3; c++) {
        x[r][c] = id + 0.5f * (r * 3 + c);
      }
    }
    return new Point(x, id);
  }
}
