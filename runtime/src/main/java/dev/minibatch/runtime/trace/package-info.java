/**
 * A timeline of the pipeline: {@link dev.minibatch.runtime.trace.PipelineTrace} records every
 * stage's work and waits per thread, as the stats count them, and writes them as Chrome trace-event
 * JSON for Perfetto's UI or {@code chrome://tracing}.
 */
@NullMarked
package dev.minibatch.runtime.trace;

import org.jspecify.annotations.NullMarked;
