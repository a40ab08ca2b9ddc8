package dev.minibatch;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares one tensor-valued member of a {@link DataProvider} sample: a field, a record component
 * or a getter ({@code getX()} / {@code isX()}, which is how Kotlin properties appear to Java).
 *
 * <p>Supported member types: the eight Java primitives (scalars, {@code shape = {}}), primitive
 * arrays whose rank equals the shape's rank (or rank 1 holding the shape's elements row-major), and
 * {@code INDArray} (checked against the shape at run time).
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.RECORD_COMPONENT})
public @interface Provides {
  /** The provided name; empty means the member's (property) name. */
  String name() default "";

  /** The per-sample shape, without the batch axis; empty means a scalar. Every dim must be > 0. */
  int[] shape() default {};

  /** True for a label (target), false for data (input). */
  boolean label() default false;

  /** The element type of the batch tensor; {@link DType#INFER} takes it from the member's type. */
  DType dtype() default DType.INFER;
}
