/**
 * NOT API. The batching engine every provider runs on, {@code BatchEngine}: random-access sources
 * (arrays, files, generated providers over a List) and streaming sources (Iterables and readers,
 * read pass by pass) differ only in their order plan per epoch (in order, shuffled, sharded, drawn:
 * {@code EpochDraws}, or a stream's pass: {@code StreamOrder}), and share one last-batch rule, one
 * padding rule, one ring of preallocated batch buffers,
 * one current-iteration and close guard, and one row-writer contract ({@code RowWriter}) with two
 * kinds of writers: rows of arrays and files ({@code RowSource}) and objects through collate code
 * ({@code SampleWriter}). Reader threads come from the one thread engine ({@code
 * internal.pipeline.Workers}). Public only so the formats, readers and generated code in other
 * packages can build on it; it may change in any release.
 */
@NullMarked
package dev.minibatch.runtime.internal.engine;

import org.jspecify.annotations.NullMarked;
