/**
 * JMH benchmarks. Every speed figure is a ratio against a baseline or a peer measured in the same
 * run; see {@code docs/performance.md} for the figures and the commands.
 */
@NullMarked
package dev.minibatch.benchmarks;

import org.jspecify.annotations.NullMarked;
