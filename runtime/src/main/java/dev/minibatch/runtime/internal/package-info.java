/**
 * NOT API. Support code called only by the classes the minibatch annotation processor generates
 * ({@code <Sample>Provider}, {@code <Sample>Batch}); nothing else in the runtime uses it. Everything
 * here may change in any release without notice; applications must not use it directly. The
 * iteration itself is the runtime's {@code dev.minibatch.runtime.internal.engine} — the same engine as
 * {@code ArrayDataProvider} and the file providers — so the semantics are written once.
 */
@NullMarked
package dev.minibatch.runtime.internal;

import org.jspecify.annotations.NullMarked;
