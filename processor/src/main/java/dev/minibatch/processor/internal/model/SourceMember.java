package dev.minibatch.processor.internal.model;

import org.jspecify.annotations.Nullable;

/**
 * A field, method or record component of a sample type, as Java sees it: a Kotlin property is its
 * backing field and its getter, as kapt's stubs show it.
 *
 * @param name the simple name
 * @param kind field, method or record component
 * @param isStatic true for a static member (a Kotlin {@code @JvmStatic} or {@code const})
 * @param isPrivate true when code in the same package cannot read it
 * @param parameters a method's parameter count (0 for fields and components)
 * @param type a field's or component's type, a method's return type
 * @param provides the {@code @Provides} annotation on it, if any
 * @param position the member itself
 */
public record SourceMember(
    String name,
    Kind kind,
    boolean isStatic,
    boolean isPrivate,
    int parameters,
    TypeRef type,
    @Nullable AnnotationData provides,
    Position position) {

  /** The kinds of member. */
  public enum Kind {
    /** A field (a Kotlin property's backing field). */
    FIELD,
    /** A method (a Kotlin property's getter). */
    METHOD,
    /** A Java record component. */
    RECORD_COMPONENT
  }
}
