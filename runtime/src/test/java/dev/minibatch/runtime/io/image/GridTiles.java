package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.awt.image.BufferedImage;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Reading a written {@link ImageGrid} back for tests of 28 x 28 images (here and the command line's
 * {@code show}): a tile cut from the PNG, a batch row of raw pixels, both as [y][x][rgb], compared
 * pixel by pixel.
 */
public final class GridTiles {
  private GridTiles() {}

  /** The tile at ({@code x0}, {@code y0}): every s x s block must be one colour; returns [y][x][rgb]. */
  public static int[][][] tile(BufferedImage img, int x0, int y0, int s) {
    int[][][] t = new int[28][28][3];
    for (int y = 0; y < 28; y++) {
      for (int x = 0; x < 28; x++) {
        int p = img.getRGB(x0 + x * s, y0 + y * s);
        for (int dy = 0; dy < s; dy++) {
          for (int dx = 0; dx < s; dx++) {
            assertEquals(p, img.getRGB(x0 + x * s + dx, y0 + y * s + dy), "block of pixel " + x + "," + y);
          }
        }
        t[y][x] = new int[] {p >> 16 & 0xff, p >> 8 & 0xff, p & 0xff};
      }
    }
    return t;
  }

  /** Row {@code row} of a (batch, h, w, c) uint8 array as [y][x][rgb]. */
  public static int[][][] raw(INDArray nhwc, int row) {
    int[][][] t = new int[28][28][3];
    for (int y = 0; y < 28; y++) {
      for (int x = 0; x < 28; x++) {
        for (int c = 0; c < 3; c++) {
          t[y][x][c] = nhwc.getInt(row, y, x, c);
        }
      }
    }
    return t;
  }

  /** Every pixel of {@code actual} equals {@code expected}'s, naming the first that differs. */
  public static void assertPixels(int[][][] expected, int[][][] actual, String what) {
    for (int y = 0; y < 28; y++) {
      for (int x = 0; x < 28; x++) {
        assertArrayEquals(expected[y][x], actual[y][x], what + " at x " + x + ", y " + y);
      }
    }
  }
}
