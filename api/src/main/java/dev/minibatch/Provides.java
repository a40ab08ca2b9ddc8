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

  /**
   * The batch tensor's layout ({@link DataDesc#layout()}): one letter per axis of the batch shape,
   * the batch axis {@code N} first, e.g. {@code "NTC"} for a sequence of feature vectors, {@code
   * "NHWC"} for channels-last images. Empty means {@link DataDesc#defaultLayout(dev.minibatch.shape.Shape)}:
   * {@code N}, {@code NC}, {@code NHW} (a 2-D sample is an image unless declared otherwise), {@code
   * NCHW}, and so on. A layout whose length is not the shape's rank plus one is the compile error
   * {@code [minibatch/LayoutRank]}.
   */
  String layout() default "";
}
