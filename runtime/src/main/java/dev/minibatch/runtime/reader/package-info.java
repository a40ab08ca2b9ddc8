/**
 * Readers: re-iterable sources of single samples and the decorators that transform them, after
 * PaddlePaddle's reader, reader creator and reader decorator.
 *
 * <p>A {@link dev.minibatch.runtime.reader.Reader} is what Paddle calls a reader creator: each
 * {@code iterator()} starts a new pass over the samples, and {@code iterator(pass)} starts pass
 * number {@code pass}, the same samples in the same order each time (what a provider reads in its
 * epoch {@code pass}, and replays to resume). Decorators are methods on it ({@code
 * map}, {@code filter}, {@code shuffle}, {@code buffered}, {@code firstn}, {@code cache}, {@code
 * xmap}, {@code batch}); combinators and creators are static methods of {@link
 * dev.minibatch.runtime.reader.Readers} ({@code compose}, {@code chain}, {@code mapReaders}, {@code
 * of}, {@code lines}, {@code generate}, {@code fake}). Decorating never reads anything: work starts
 * when a pass starts. Threads, when a decorator uses them, come from {@link
 * dev.minibatch.runtime.pipeline}, which documents the guarantees.
 */
@NullMarked
package dev.minibatch.runtime.reader;

import org.jspecify.annotations.NullMarked;
