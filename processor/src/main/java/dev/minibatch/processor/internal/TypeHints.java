package dev.minibatch.processor.internal;

import dev.minibatch.processor.internal.model.TypeRef;
import java.util.Map;

/**
 * Picks the advice for a member type the collate code cannot copy: the usual mistakes are a wrapper
 * instead of a primitive, and class names (or other strings) where the batch needs numbers.
 */
final class TypeHints {
  private static final Map<String, String> PRIMITIVE_OF_WRAPPER = Map.of(
      "java.lang.Boolean", "boolean", "java.lang.Byte", "byte", "java.lang.Short", "short",
      "java.lang.Character", "char", "java.lang.Integer", "int", "java.lang.Long", "long",
      "java.lang.Float", "float", "java.lang.Double", "double");

  private TypeHints() {}

  /** The advice for a member of unsupported {@code type}, a label when {@code label}; "" when none fits. */
  static String of(TypeRef type, boolean label) {
    if (type.kind() != TypeRef.Kind.DECLARED && type.kind() != TypeRef.Kind.ENUM) {
      return Message.Detail.HINT_NONE.format();
    }
    String name = type.name();
    int rank = type.rank();
    if (name.equals("java.lang.String") || name.equals("java.lang.CharSequence")) {
      return (label ? Message.Detail.HINT_CLASS_NAMES : Message.Detail.HINT_TEXT).format();
    }
    if (type.kind() == TypeRef.Kind.ENUM) {
      return Message.Detail.HINT_ENUM.format();
    }
    String primitive = PRIMITIVE_OF_WRAPPER.get(name);
    if (primitive != null) {
      return Message.Detail.HINT_BOXED.format(primitive + "[]".repeat(rank));
    }
    return Message.Detail.HINT_NONE.format();
  }
}
