/**
 * NOT API. The thread engine under readers and providers: one hand-off primitive ({@code HandOff})
 * under a producer thread with a bounded queue ({@code Stages.generate}, {@code Stages.prefetch}), a
 * parallel map that keeps or relaxes the source order ({@code Stages.parallelMap}), worker threads with a cleaner ({@code
 * Workers}, {@code ThreadCleaner}), and per-stage counters.
 * Public only so the engine and the readers can build on it; it may change in any release.
 */
@NullMarked
package dev.minibatch.runtime.internal.pipeline;

import org.jspecify.annotations.NullMarked;
