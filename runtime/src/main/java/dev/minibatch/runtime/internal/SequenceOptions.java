package dev.minibatch.runtime.internal;

/**
 * NOT API: the builder settings of a generated provider with variable-length members.
 *
 * @param fixedLength pad every batch to the bound instead of to its longest sample
 */
public record SequenceOptions(boolean fixedLength) {}
