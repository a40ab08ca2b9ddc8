package dev.minibatch.processor.internal.model;

import org.jspecify.annotations.Nullable;

/**
 * One of our annotations as written on a type or member: its values, defaults included, and where
 * the source wrote each explicit value. Read by attribute name, so nothing depends on loading the
 * annotation classes.
 */
public interface AnnotationData {
  /** {@code dev.minibatch.DataProvider}. */
  String DATA_PROVIDER = "dev.minibatch.DataProvider";
  /** {@code dev.minibatch.Provides}. */
  String PROVIDES = "dev.minibatch.Provides";

  /** The annotation on its element. */
  Position position();

  /**
   * The value of {@code attribute}, explicit or default: an {@code Integer}, {@code Boolean},
   * {@code String} or {@code Double} for those attribute types, an enum constant's simple name as
   * a {@code String}, and a {@code List<Integer>} for an {@code int[]}.
   *
   * @throws IllegalArgumentException if the annotation has no such attribute
   */
  Object value(String attribute);

  /** Where the source wrote {@code attribute}; null when it took the default. */
  @Nullable Position explicit(String attribute);
}
