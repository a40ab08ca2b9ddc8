/**
 * What other modules and users extending the runtime build on: the base of a provider that runs on
 * the batching engine ({@link dev.minibatch.runtime.spi.EngineProvider}) and the engine as that
 * base sees it ({@link dev.minibatch.runtime.spi.Engine}). Every signature here names only API
 * types: nothing in {@code internal} is needed to use them. See docs/engine.md, "Packages".
 */
@NullMarked
package dev.minibatch.runtime.spi;

import org.jspecify.annotations.NullMarked;
