package dev.minibatch.processor.internal.model;

/**
 * Where a diagnostic points: a type, a member, an annotation on it, or one value of that
 * annotation. Opaque to the core, which only passes positions back to the {@link Output} of the
 * front end that made them.
 */
public interface Position {}
