package dev.minibatch.processor;

import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.type.TypeMirror;
import org.jspecify.annotations.Nullable;

/**
 * One {@code @Provides} member as found in the source, before validation: where it is, its
 * annotation, its property name and type, and how generated code reads it.
 *
 * @param element the field, getter method or record component carrying the annotation
 * @param annotation the {@code @Provides} mirror
 * @param property the property name ({@code getImage()} → {@code image})
 * @param type the member's type (a getter's return type)
 * @param read the Java expression, relative to a sample, that reads it ({@code image()}, {@code
 *     image}, {@code getImage()}); null when it cannot be read
 * @param unreadable why it cannot be read, when {@code read} is null
 */
record Member(
    Element element,
    AnnotationMirror annotation,
    String property,
    TypeMirror type,
    @Nullable String read,
    @Nullable String unreadable) {

  /** How the member looks in messages: {@code 'image'} plus its kind when not a field. */
  String describe() {
    return "'" + element.getSimpleName() + "'";
  }
}
