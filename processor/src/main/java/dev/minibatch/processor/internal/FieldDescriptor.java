package dev.minibatch.processor.internal;

import dev.minibatch.DType;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One provided tensor of a sample, validated.
 *
 * @param property the member's property name, the base of the generated accessor and constant
 * @param name the provided name (a model's binding name)
 * @param label true for a label
 * @param dtype the batch tensor's element type, never INFER
 * @param shape the per-sample shape (empty for a scalar), every dim positive
 * @param layout the batch tensor's layout: the declared one, or the default for the shape
 * @param storage how the member holds its value
 * @param primitive the Java primitive of a scalar or array member; null for INDArray
 * @param arrayRank the rank of an array member: the shape's rank, or 1 for flat storage
 * @param read the expression reading the member from a sample ({@code image()})
 * @param accessor the generated batch accessor ({@code getImage})
 * @param constant the generated name constant ({@code IMAGE})
 * @param variableAxis the VARIABLE axis of {@code shape}, or -1 for a fixed shape
 * @param group the length group (the index in {@link SampleDescriptor#groups()} of the member whose
 *     length this one has: itself, or the one it is {@code sameLengthAs}); -1 for a fixed shape
 * @param maxLength the bound of the variable axis (the group root's), 0 for none
 * @param tooLong the group root's policy for samples longer than maxLength
 * @param stepPadding the value of padded steps
 * @param encoding how the member holds its value: RAW elements, or an encoded image's bytes that the
 *     provider decodes into the shape, layout and dtype above
 */
record FieldDescriptor(
    String property,
    String name,
    boolean label,
    DType dtype,
    List<Integer> shape,
    String layout,
    FieldType.Storage storage,
    @Nullable String primitive,
    int arrayRank,
    String read,
    String accessor,
    String constant,
    int variableAxis,
    int group,
    int maxLength,
    dev.minibatch.TooLong tooLong,
    double stepPadding,
    dev.minibatch.SampleSchema.Encoding encoding) {

  FieldDescriptor {
    shape = List.copyOf(shape);
  }

  /** The elements of one sample; for a variable shape, of one step (the variable axis counted as 1). */
  long elementCount() {
    long n = 1;
    for (int d : shape) {
      n *= d == dev.minibatch.Provides.VARIABLE ? 1 : d;
    }
    return n;
  }

  /** True for an encoded image: the collate decodes the member's bytes instead of copying elements. */
  boolean encoded() {
    return encoding.image();
  }

  boolean variable() {
    return variableAxis >= 0;
  }

  /** True when the member's dtype is the one its Java type holds, so copies can be bulk. */
  boolean natural() {
    return primitive != null && DType.ofPrimitive(primitive) == dtype;
  }
}
