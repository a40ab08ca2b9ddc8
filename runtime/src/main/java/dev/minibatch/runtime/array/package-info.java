/**
 * {@link dev.minibatch.runtime.array.ArrayDataProvider}: mini-batches of in-memory arrays (MXNet.jl's
 * {@code ArrayDataProvider}, MXNet's {@code NDArrayIter}), a front end of the runtime's batching
 * engine.
 */
@NullMarked
package dev.minibatch.runtime.array;

import org.jspecify.annotations.NullMarked;
