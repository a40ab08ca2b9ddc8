/** A provider written on the runtime's batching engine, the example of docs/engine.md, checked by the contract. */
@NullMarked
package dev.minibatch.runtime.example;

import org.jspecify.annotations.NullMarked;
