package dev.minibatch.processor.internal;

import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.Position;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads our annotations' values typed, from the front end's {@link AnnotationData}: values stay
 * tied to their {@link Position}s so diagnostics can point at them, and nothing depends on loading
 * the annotation classes.
 */
final class Annotations {
  private Annotations() {}

  /** Where the source wrote {@code attribute}, or null when it took the default. */
  static @Nullable Position explicit(AnnotationData m, String attribute) {
    return m.explicit(attribute);
  }

  /** Where the source wrote {@code attribute}, or else the annotation. */
  static Position at(AnnotationData m, String attribute) {
    Position p = m.explicit(attribute);
    return p != null ? p : m.position();
  }

  static int intValue(AnnotationData m, String attribute) {
    return ((Number) m.value(attribute)).intValue();
  }

  static boolean booleanValue(AnnotationData m, String attribute) {
    return (Boolean) m.value(attribute);
  }

  static String stringValue(AnnotationData m, String attribute) {
    return (String) m.value(attribute);
  }

  static double doubleValue(AnnotationData m, String attribute) {
    return ((Number) m.value(attribute)).doubleValue();
  }

  /** The simple name of an enum constant value. */
  static String enumValue(AnnotationData m, String attribute) {
    return (String) m.value(attribute);
  }

  /** The ints of an {@code int[]} attribute. */
  static int[] intArray(AnnotationData m, String attribute) {
    Object v = m.value(attribute);
    List<Integer> out = new ArrayList<>();
    if (v instanceof List<?> list) {
      for (Object o : list) {
        out.add(((Number) o).intValue());
      }
    } else {
      out.add(((Number) v).intValue());
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }
}
