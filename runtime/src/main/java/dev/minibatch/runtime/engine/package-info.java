/**
 * The batching engine every provider runs on. {@link dev.minibatch.runtime.engine.BatchEngine}
 * (random-access sources: arrays, files, generated providers over a List) and {@link
 * dev.minibatch.runtime.engine.StreamEngine} (streaming sources: Iterables and readers) share one
 * order plan per epoch (in order, shuffled, sharded, or drawn: {@link
 * dev.minibatch.runtime.engine.EpochDraws}), one last-batch switch, one padding rule, one ring of
 * preallocated batch buffers, one current-iteration and close guard, and one row-writer contract
 * ({@link dev.minibatch.runtime.engine.RowWriter}) with two kinds of writers: rows of arrays and
 * files ({@link dev.minibatch.runtime.engine.RowSource}) and objects through collate code ({@link
 * dev.minibatch.runtime.engine.SampleWriter}). Reader threads come from the pipeline's one thread
 * engine ({@link dev.minibatch.runtime.pipeline.Workers}).
 *
 * <p>A new provider needs a row source (or a sample writer) and a builder; everything else is
 * here. Implementations are package-private behind these few public types.
 */
@NullMarked
package dev.minibatch.runtime.engine;

import org.jspecify.annotations.NullMarked;
