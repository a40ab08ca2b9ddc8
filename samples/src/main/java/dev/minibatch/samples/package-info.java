/** Small runnable programs, one idea each, that show minibatch in use. */
@NullMarked
package dev.minibatch.samples;

import org.jspecify.annotations.NullMarked;
