/**
 * Not API: the front-end-neutral view of the sources that the processor core validates and
 * generates from. A front end (javac's {@code MinibatchProcessor}, or the KSP2 processor of {@code
 * minibatch-processor-ksp}) implements {@link dev.minibatch.processor.internal.model.Round}, {@link
 * dev.minibatch.processor.internal.model.SourceType} and {@link
 * dev.minibatch.processor.internal.model.Output} over its own symbols; the core reads nothing else,
 * so both front ends report the same diagnostics and write the same files. Public only so the KSP
 * module can reach it; it may change in any release.
 */
@NullMarked
package dev.minibatch.processor.internal.model;

import org.jspecify.annotations.NullMarked;
