package dev.minibatch.processor;

import dev.minibatch.processor.internal.model.Position;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import org.jspecify.annotations.Nullable;

/**
 * A place javac can underline: an element, the annotation on it, or one value of that annotation
 * ({@code Messager.printMessage}'s three forms).
 */
record JavacPosition(Element element, @Nullable AnnotationMirror annotation, @Nullable AnnotationValue value)
    implements Position {}
