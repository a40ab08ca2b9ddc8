/** A streaming provider over a plain Iterable, as generated code builds one, checked by the contract. */
@NullMarked
package dev.minibatch.runtime.stream;

import org.jspecify.annotations.NullMarked;
