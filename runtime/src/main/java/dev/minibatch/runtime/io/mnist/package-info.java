/**
 * MNIST: {@link dev.minibatch.runtime.io.mnist.MnistProvider}, MXNet's {@code MNISTIter} over the
 * idx image and label files (raw or gzip).
 */
@NullMarked
package dev.minibatch.runtime.io.mnist;

import org.jspecify.annotations.NullMarked;
