package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.symbol.KSNode;
import dev.minibatch.processor.internal.model.Position;

/**
 * A symbol KSP can report at: a declaration, an annotation or one of its arguments. KSP reports
 * the file and line of the node's {@code FileLocation}; {@link KspAnnotation} picks nodes that have
 * one, falling back to the declaration.
 */
record KspPosition(KSNode node) implements Position {}
