package dev.minibatch.processor.internal;

import dev.minibatch.processor.internal.model.TypeRef;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Picks the advice for a member type the collate code cannot copy: the usual mistakes are a wrapper
 * instead of a primitive, class names (or other strings) where the batch needs numbers, a list of
 * arrays where an array of them is copied, and a label that is an object of the application's.
 */
final class TypeHints {
  private static final Map<String, String> PRIMITIVE_OF_WRAPPER = Map.of(
      "java.lang.Boolean", "boolean", "java.lang.Byte", "byte", "java.lang.Short", "short",
      "java.lang.Character", "char", "java.lang.Integer", "int", "java.lang.Long", "long",
      "java.lang.Float", "float", "java.lang.Double", "double");
  /** Collections a sample might hold its steps in; Java's and Kotlin's (List, MutableList, …) alike. */
  private static final Set<String> COLLECTIONS = Set.of("java.util.List", "java.util.ArrayList",
      "java.util.LinkedList", "java.util.Collection", "java.lang.Iterable", "java.util.Set", "java.util.Deque",
      "java.util.Queue");

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
    if (rank == 0 && COLLECTIONS.contains(name)) {
      String array = arrayOfElements(type.text());
      return array == null ? Message.Detail.HINT_COLLECTION_OTHER.format()
          : Message.Detail.HINT_COLLECTION.format(array, kotlinArray(array));
    }
    if (label && rank == 0 && !name.equals("java.lang.Object")) {
      return Message.Detail.HINT_CLASS_LABEL.format();
    }
    return Message.Detail.HINT_NONE.format();
  }

  /** True for {@code java.lang.Float} and the other wrappers of the eight primitives. */
  static boolean isWrapper(String qualifiedName) {
    return PRIMITIVE_OF_WRAPPER.containsKey(qualifiedName);
  }

  /**
   * The array that holds what a collection type holds: {@code float[][]} for {@code
   * java.util.List<float[]>}, {@code float[]} for {@code java.util.List<java.lang.Float>}; null when
   * its elements are neither primitive arrays nor wrappers.
   */
  private static @Nullable String arrayOfElements(String text) {
    int open = text.indexOf('<');
    if (open < 0 || !text.endsWith(">")) {
      return null;
    }
    String element = text.substring(open + 1, text.length() - 1).trim();
    if (element.startsWith("? extends ")) {
      element = element.substring("? extends ".length());
    }
    String base = element.replace("[]", "");
    int rank = (element.length() - base.length()) / 2;
    String primitive = PRIMITIVE_OF_WRAPPER.containsValue(base) ? base : PRIMITIVE_OF_WRAPPER.get(base);
    return primitive == null ? null : primitive + "[]".repeat(rank + 1);
  }

  /** A Java primitive array type as Kotlin writes it: {@code float[]} → {@code FloatArray}, {@code float[][]} → {@code Array<FloatArray>}. */
  static String kotlinArray(String javaArray) {
    String primitive = javaArray.replace("[]", "");
    int rank = (javaArray.length() - primitive.length()) / 2;
    String out = Character.toUpperCase(primitive.charAt(0)) + primitive.substring(1).toLowerCase(Locale.ROOT) + "Array";
    for (int i = 1; i < rank; i++) {
      out = "Array<" + out + ">";
    }
    return out;
  }
}
