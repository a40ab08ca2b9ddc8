package dev.minibatch.spark;

import dev.minibatch.runtime.ProviderBuilder;
import java.io.Serializable;
import java.util.function.Consumer;

/**
 * The provider settings (batch size, last-batch policy, shuffle, seed, padding) as a serializable
 * lambda, applied to the generated builder on the driver and on the executors:
 * {@code b -> b.batchSize(64).shuffle(true).seed(7)}. Shards are not set here: the Spark module
 * sets them from the trainer's shard.
 */
@FunctionalInterface
public interface ProviderSettings extends Consumer<ProviderBuilder<?>>, Serializable {}
