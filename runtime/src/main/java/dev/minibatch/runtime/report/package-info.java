/**
 * A report people can look at: {@link dev.minibatch.runtime.report.PipelineReport} turns the stats
 * of a provider's epochs into one self-contained HTML file with plots (throughput over time, each
 * stage's busy and waiting share, queue depths, bad samples and padding) and the live verdict's
 * judgement of the run.
 */
@NullMarked
package dev.minibatch.runtime.report;

import org.jspecify.annotations.NullMarked;
