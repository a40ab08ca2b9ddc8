package dev.minibatch.runtime.internal;

/**
 * NOT API: the builder settings of a generated provider with variable-length members.
 *
 * @param fixedLength pad every batch to the bound instead of to its longest sample
 * @param buckets group samples by length into these buckets; null for none
 */
public record SequenceOptions(boolean fixedLength, dev.minibatch.runtime.@org.jspecify.annotations.Nullable Buckets buckets) {}
