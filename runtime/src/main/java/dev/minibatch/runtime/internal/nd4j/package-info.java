/**
 * NOT API. The one package that touches ND4J internals: dtype mapping, conversion of Java arrays, bulk
 * copies of rows between native buffers, and device placement. Everything else in the runtime
 * goes through these classes, so a change of ND4J version or backend is contained here.
 */
@NullMarked
package dev.minibatch.runtime.internal.nd4j;

import org.jspecify.annotations.NullMarked;
