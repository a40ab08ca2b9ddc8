/**
 * A Dagger-wired training app: the component injects the generated provider (through the module
 * the processor writes with {@code -Aminibatch.daggerModule=true}) and the training loop.
 */
@NullMarked
package dev.minibatch.samples.dagger;

import org.jspecify.annotations.NullMarked;
