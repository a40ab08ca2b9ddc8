package dev.minibatch.spark;

import dev.minibatch.DType;
import dev.minibatch.DataProvider;
import dev.minibatch.Provides;

/**
 * A test sample with a rank-3 int array, a byte array (a binary column) and a double scalar.
 *
 * @param cube 2×3×2 ints
 * @param pixels 4 bytes
 * @param w a weight
 */
@DataProvider(batchSize = 2)
public record Cube(
    @Provides(shape = {2, 3, 2}) int[][][] cube,
    @Provides(shape = {4}, dtype = DType.UINT8) byte[] pixels,
    @Provides(label = true) double w) {}
