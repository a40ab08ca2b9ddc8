/**
 * The main job: a one-hidden-layer network trained with ND4J SameDiff on real MNIST digits, fed by
 * the provider generated from {@link dev.minibatch.samples.mnist.MnistDigit}.
 */
@NullMarked
package dev.minibatch.samples.mnist;

import org.jspecify.annotations.NullMarked;
