/**
 * What other modules and users extending the runtime build on: the base of a provider that runs on
 * the batching engine ({@link dev.minibatch.runtime.spi.EngineProvider}) and the engine as that
 * base sees it ({@link dev.minibatch.runtime.spi.Engine}), a source's rows ({@link
 * dev.minibatch.runtime.spi.Rows}), an epoch order a provider draws itself ({@link
 * dev.minibatch.runtime.spi.EpochDraws}), the one seed derivation and shuffle every order and
 * per-sample draw uses ({@link dev.minibatch.runtime.spi.Seeds}), and the element types' ND4J
 * counterparts ({@link dev.minibatch.runtime.spi.DTypes}), and files on other file systems read by
 * byte ranges ({@link dev.minibatch.runtime.spi.RemoteFiles}, {@link
 * dev.minibatch.runtime.spi.RangedFile}), and {@code sun.misc.Unsafe}'s methods where the JDK offers
 * them quietly ({@link dev.minibatch.runtime.spi.UnsafeHandles}). Every signature here names only API
 * types: nothing in {@code internal} is needed to use them. See docs/engine.md, "Packages".
 */
@NullMarked
package dev.minibatch.runtime.spi;

import org.jspecify.annotations.NullMarked;
