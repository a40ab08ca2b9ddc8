/**
 * The order in which random-access providers visit their samples: {@link
 * dev.minibatch.runtime.sampling.SampleScheduler} turns the shared {@link
 * dev.minibatch.runtime.Sampling} settings into one {@link dev.minibatch.runtime.sampling.EpochPlan}
 * per epoch — permutation, shard, last-batch policy, carried samples — and keeps the resumable
 * state. Every provider that reads samples by index uses it, so they all agree on the semantics.
 */
@NullMarked
package dev.minibatch.runtime.sampling;

import org.jspecify.annotations.NullMarked;
