/**
 * The provider contract: one JUnit 5 suite, {@link dev.minibatch.runtime.contract.ProviderContract},
 * that every {@link dev.minibatch.runtime.BatchProvider} must pass — last-batch policies, batch
 * bookkeeping, shuffle and seed, shards, resuming, nested and concurrent use, closing and thread
 * hygiene, failures. A provider kind takes part by implementing a small {@link
 * dev.minibatch.runtime.contract.ProviderFixture}: build a provider of {@code n} samples from the
 * shared builder settings, say whether a batch row holds sample {@code i}, and declare what the
 * provider can do; the tests it cannot support are skipped, never passed.
 *
 * <p>Shipped in {@code minibatch-runtime}'s test-jar so applications can run it on their own
 * providers (see {@code docs/testing-providers.md}).
 */
@NullMarked
package dev.minibatch.runtime.contract;

import org.jspecify.annotations.NullMarked;
