/**
 * Providers made of other providers: {@link dev.minibatch.runtime.engine.PrefetchingProvider} (the
 * next batch made on a background thread), {@link dev.minibatch.runtime.engine.ResizedProvider}
 * (a fixed number of batches per epoch) and {@link dev.minibatch.runtime.engine.MergedProvider}
 * (several providers side by side), and {@link dev.minibatch.runtime.engine.Multicast} (one epoch
 * of a provider read by several consumers, Data Provider Core's Watcher). The batching engine they and every other provider run on is in
 * {@code dev.minibatch.runtime.internal.engine} (not API).
 */
@NullMarked
package dev.minibatch.runtime.engine;

import org.jspecify.annotations.NullMarked;
