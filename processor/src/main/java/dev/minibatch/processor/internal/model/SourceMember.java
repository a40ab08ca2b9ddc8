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
 * @param kotlin what Kotlin declared for it, which Java's view loses; null for a member of a Java
 *     type (and for what Kotlin's metadata does not describe)
 */
public record SourceMember(
    String name,
    Kind kind,
    boolean isStatic,
    boolean isPrivate,
    int parameters,
    TypeRef type,
    @Nullable AnnotationData provides,
    Position position,
    @Nullable Kotlin kotlin) {

  /** The kinds of member. */
  public enum Kind {
    /** A field (a Kotlin property's backing field). */
    FIELD,
    /** A method (a Kotlin property's getter). */
    METHOD,
    /** A Java record component. */
    RECORD_COMPONENT
  }

  /**
   * The Kotlin declaration behind a member of a Kotlin class: the property whose backing field or
   * getter it is, or the function. kapt's stubs and KSP's JVM view both lose this: a {@code
   * FloatArray?} is a {@code float[]}, a {@code UByteArray} a {@code byte[]} whose getter Java
   * cannot call.
   *
   * @param type the declared type as Kotlin writes it, with simple names ({@code FloatArray?},
   *     {@code UByteArray}, {@code List<FloatArray>}, {@code Outer.Label})
   * @param classifier the qualified name of the type's class ({@code kotlin.UByteArray}); empty for
   *     a type parameter
   * @param nullable true for a nullable type ({@code FloatArray?})
   * @param mangledGetter the getter's JVM name when Kotlin mangles it ({@code getPx-TcUX1vc}, for a
   *     value-class type: an unsigned type or a {@code @JvmInline value class}); null otherwise
   */
  public record Kotlin(String type, String classifier, boolean nullable, @Nullable String mangledGetter) {}
}
