/**
 * The runtime contracts — {@link dev.minibatch.runtime.BatchProvider}, {@link
 * dev.minibatch.runtime.Batch}, {@link dev.minibatch.runtime.Batch.SlicedNDArray}, {@link
 * dev.minibatch.runtime.Device} — and the providers built on them, starting with {@link
 * dev.minibatch.runtime.ArrayDataProvider}.
 *
 * <p>Conventions: the batch axis is axis 0 ({@code [batch, ...sampleShape]}, row-major). MXNet.jl
 * puts the batch axis last because Julia is column-major; the bytes in memory are the same, only
 * the order in which the axes are written differs. A {@link dev.minibatch.runtime.Batch} and its
 * arrays are valid until the iterator that produced it moves on: providers reuse their batch
 * buffers. Call {@link dev.minibatch.runtime.Batch#copy()} to keep one.
 */
@NullMarked
package dev.minibatch.runtime;

import dev.minibatch.runtime.Batch.SlicedNDArray;
import org.jspecify.annotations.NullMarked;
