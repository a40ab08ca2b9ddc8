/**
 * The annotations a user writes ({@link dev.minibatch.DataProvider}, {@link dev.minibatch.Provides})
 * and the pure value types every provider speaks: {@link dev.minibatch.SampleSchema} (what one
 * sample holds), {@link dev.minibatch.DataDesc} (one array of a batch), {@link dev.minibatch.DType},
 * {@link dev.minibatch.Role} and {@link dev.minibatch.LastBatch}.
 *
 * <p>This package has no dependency on ND4J, so the annotation processor and applications that
 * only describe data can use it alone.
 */
@NullMarked
package dev.minibatch;

import org.jspecify.annotations.NullMarked;
