package dev.minibatch.processor.internal;

import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.SourceMember;
import dev.minibatch.processor.internal.model.TypeRef;
import org.jspecify.annotations.Nullable;

/**
 * One {@code @Provides} member as found in the source, before validation: where it is, its
 * annotation, its property name and type, and how generated code reads it.
 *
 * @param element the field, getter method or record component carrying the annotation
 * @param annotation the {@code @Provides} annotation
 * @param property the property name ({@code getImage()} → {@code image})
 * @param type the member's type (a getter's return type)
 * @param read the Java expression, relative to a sample, that reads it ({@code image()}, {@code
 *     image}, {@code getImage()}); null when it cannot be read
 * @param unreadable why it cannot be read, when {@code read} is null
 * @param kind what messages call it: {@code record component} (also a record's component field,
 *     where javac can point), {@code method} or {@code field}
 */
record Member(
    SourceMember element,
    AnnotationData annotation,
    String property,
    TypeRef type,
    @Nullable String read,
    @Nullable String unreadable,
    String kind) {}
