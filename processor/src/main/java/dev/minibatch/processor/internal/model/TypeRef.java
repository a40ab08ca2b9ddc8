package dev.minibatch.processor.internal.model;

/**
 * A member's type as the core needs it: how it reads in messages, and what it is once its array
 * dimensions are taken off.
 *
 * @param text the type as Java prints it ({@code float[][]}, {@code java.lang.Float}, {@code
 *     java.util.List<float[]>}); for an unresolved type, as the source wrote it
 * @param erasure the erased type as Java prints it, to compare a getter with its field
 * @param rank the array dimensions ({@code 0} for a non-array)
 * @param kind what the type is once the array dimensions are taken off
 * @param name that element type's name: a primitive's keyword ({@code float}), a declared type's
 *     qualified name, {@code void}; the source's spelling when unresolved
 */
public record TypeRef(String text, String erasure, int rank, Kind kind, String name) {
  /** What the element type (the type without its array dimensions) is. */
  public enum Kind {
    /** One of the eight primitives. */
    PRIMITIVE,
    /** {@code void}: a method that returns nothing. */
    VOID,
    /** A class, interface or record. */
    DECLARED,
    /** An enum. */
    ENUM,
    /** A type that could not be resolved (yet). */
    UNRESOLVED,
    /** Anything else: a type variable, a wildcard, an intersection. */
    OTHER
  }
}
