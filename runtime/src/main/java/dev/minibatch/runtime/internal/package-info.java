/**
 * NOT API. Support code called only by the classes the minibatch annotation processor generates
 * ({@code <Sample>Provider}, {@code <Sample>Batch}). Everything here may change in any release
 * without notice; applications must not use it directly. It lives in the runtime (not in the
 * generated code) so the iteration semantics are written once and shared with {@link
 * dev.minibatch.runtime.ArrayDataProvider}: both sit on {@link
 * dev.minibatch.runtime.sampling.SampleScheduler} and {@link dev.minibatch.runtime.BatchBuffers}.
 */
@NullMarked
package dev.minibatch.runtime.internal;

import org.jspecify.annotations.NullMarked;
