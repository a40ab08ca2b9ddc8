package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.symbol.KSNode;
import dev.minibatch.processor.internal.model.Position;

/**
 * A symbol KSP can report at: a declaration, an annotation or one of its arguments. KSP reports
 * the file and line of the node ({@code FileLocation}); a node without a location (a default
 * argument) is never made into a position.
 */
record KspPosition(KSNode node) implements Position {}
