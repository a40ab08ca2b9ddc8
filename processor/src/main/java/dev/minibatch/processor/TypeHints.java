package dev.minibatch.processor;

import java.util.Map;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

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
  static String of(TypeMirror type, boolean label) {
    TypeMirror element = type;
    int rank = 0;
    while (element.getKind() == TypeKind.ARRAY) {
      element = ((ArrayType) element).getComponentType();
      rank++;
    }
    if (!(element instanceof DeclaredType declared) || !(declared.asElement() instanceof TypeElement te)) {
      return Message.Detail.HINT_NONE.format();
    }
    String name = te.getQualifiedName().toString();
    if (name.equals("java.lang.String") || name.equals("java.lang.CharSequence")) {
      return (label ? Message.Detail.HINT_CLASS_NAMES : Message.Detail.HINT_TEXT).format();
    }
    if (te.getKind() == ElementKind.ENUM) {
      return Message.Detail.HINT_ENUM.format();
    }
    String primitive = PRIMITIVE_OF_WRAPPER.get(name);
    if (primitive != null) {
      return Message.Detail.HINT_BOXED.format(primitive + "[]".repeat(rank));
    }
    return Message.Detail.HINT_NONE.format();
  }
}
