/** The provider contract run on the generated providers (list and streaming sources). */
@NullMarked
package dev.minibatch.samples.contract;

import org.jspecify.annotations.NullMarked;
