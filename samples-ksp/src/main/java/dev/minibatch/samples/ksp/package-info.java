/** Samples whose providers KSP2 generates in a Maven build: {@code Point} (Kotlin) and {@link dev.minibatch.samples.ksp.Reading}. */
@NullMarked
package dev.minibatch.samples.ksp;

import org.jspecify.annotations.NullMarked;
