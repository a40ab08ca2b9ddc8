/**
 * The shape model shared by the annotation processor and the runtime: {@link
 * dev.minibatch.shape.Shape} and the one checker, {@link dev.minibatch.shape.ShapeCheck}, whose
 * messages are identical at compile time and at run time.
 */
@NullMarked
package dev.minibatch.shape;

import org.jspecify.annotations.NullMarked;
