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
 *
 * <p>One axis of a shape may be {@link #VARIABLE}: samples then differ in length along it (text,
 * audio, time series), and the batch pads every sample to the longest one of the batch (or to the
 * bucket's bound, or to {@link #maxLength()} with fixed shapes), fills the padded steps with {@link
 * #stepPadding()}, and gives a mask ({@code [batch, T]}, 1 for real steps) and the lengths ({@code
 * [batch]}) next to the data. Only arrays of the shape's rank (not flat ones) and {@code INDArray}
 * can hold a variable axis; see {@code docs/sequences.md}.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.RECORD_COMPONENT})
public @interface Provides {
  /**
   * The marker of a variable axis in {@link #shape()}: {@code shape = {VARIABLE, 64}} is a sequence
   * of any length of 64-element vectors. At most one axis per member.
   */
  int VARIABLE = -1;

  /** The provided name; empty means the member's (property) name. */
  String name() default "";

  /**
   * The per-sample shape, without the batch axis; empty means a scalar. Every dim must be > 0,
   * except one that may be {@link #VARIABLE}.
   */
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

  /**
   * The longest a sample may be along the {@link #VARIABLE} axis; 0 (the default) means no bound.
   * Longer samples are handled by {@link #tooLong()}. With a bound, the batch buffers are sized by
   * it and {@link DataDesc#maxLength()} reports it. Needs a variable axis ({@code
   * [minibatch/MaxLengthWithoutVariable]}).
   */
  int maxLength() default 0;

  /** What a sample longer than {@link #maxLength()} becomes: an error (the default) or truncated. */
  TooLong tooLong() default TooLong.ERROR;

  /**
   * The member (by property name) whose variable axis this member's variable axis must equal in
   * every sample, e.g. the tags of a tagging task {@code sameLengthAs = "tokens"}: they then share
   * one length, one mask and one bound ({@code maxLength} and {@code tooLong} are declared on the
   * named member only). The generated collate checks the lengths per sample.
   */
  String sameLengthAs() default "";

  /** The value padded steps of the variable axis hold (0 by default); padded rows keep the builder's padding. */
  double stepPadding() default 0;

  /**
   * How the member holds its value: {@link SampleSchema.Encoding#RAW} (the default), the elements
   * themselves; or an {@code IMAGE_*} encoding, the bytes of one encoded image (JPEG, PNG, or
   * another format OpenCV reads) in a {@code byte[]}, which the provider decodes, augments and
   * normalises on its reader threads into the batch array the shape, layout and dtype declare: a
   * shape of rank 3 with the channel axis first ({@code {3, 224, 224}}, layout {@code NCHW}, the
   * default) or last ({@code layout = "NHWC"}), as many channels as the encoding names, dtype
   * {@code UINT8} (the default here) or {@code FLOAT32}. The processor checks all of it at compile
   * time (diagnostic {@code EncodedImage}); the builder gets {@code augment}, {@code normalize} and
   * {@code reducedDecode}, as {@code ImageRecordProvider} has them (docs/images.md).
   */
  SampleSchema.Encoding encoding() default SampleSchema.Encoding.RAW;
}
