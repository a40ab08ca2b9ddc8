package dev.minibatch.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.Elements;
import org.jspecify.annotations.Nullable;

/**
 * Reads our annotations through {@link AnnotationMirror}s, never {@code getAnnotation()}: values stay
 * {@link AnnotationValue}s that diagnostics can point at, and nothing depends on loading the
 * annotation classes.
 */
final class Annotations {
  static final String DATA_PROVIDER = "dev.minibatch.DataProvider";
  static final String PROVIDES = "dev.minibatch.Provides";

  private Annotations() {}

  /** The mirror of the annotation {@code qualifiedName} on {@code e}, if present. */
  static Optional<AnnotationMirror> find(Element e, String qualifiedName) {
    for (AnnotationMirror m : e.getAnnotationMirrors()) {
      Element type = m.getAnnotationType().asElement();
      if (type instanceof TypeElement t && t.getQualifiedName().contentEquals(qualifiedName)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  /** The value the source wrote for {@code attribute}, or null when it took the default. */
  static @Nullable AnnotationValue explicit(AnnotationMirror m, String attribute) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e : m.getElementValues().entrySet()) {
      if (e.getKey().getSimpleName().contentEquals(attribute)) {
        return e.getValue();
      }
    }
    return null;
  }

  /** The value of {@code attribute}, explicit or default. */
  static AnnotationValue value(Elements elements, AnnotationMirror m, String attribute) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e
        : elements.getElementValuesWithDefaults(m).entrySet()) {
      if (e.getKey().getSimpleName().contentEquals(attribute)) {
        return e.getValue();
      }
    }
    throw new IllegalArgumentException("no attribute " + attribute + " on " + m);
  }

  static int intValue(Elements elements, AnnotationMirror m, String attribute) {
    return (Integer) value(elements, m, attribute).getValue();
  }

  static boolean booleanValue(Elements elements, AnnotationMirror m, String attribute) {
    return (Boolean) value(elements, m, attribute).getValue();
  }

  static String stringValue(Elements elements, AnnotationMirror m, String attribute) {
    return (String) value(elements, m, attribute).getValue();
  }

  /** The simple name of an enum constant value. */
  static double doubleValue(Elements elements, AnnotationMirror m, String attribute) {
    return ((Number) value(elements, m, attribute).getValue()).doubleValue();
  }

  static String enumValue(Elements elements, AnnotationMirror m, String attribute) {
    return ((VariableElement) value(elements, m, attribute).getValue()).getSimpleName().toString();
  }

  /** The ints of an {@code int[]} attribute. */
  static int[] intArray(Elements elements, AnnotationMirror m, String attribute) {
    Object v = value(elements, m, attribute).getValue();
    List<Integer> out = new ArrayList<>();
    if (v instanceof List<?> list) {
      for (Object o : list) {
        out.add((Integer) ((AnnotationValue) o).getValue());
      }
    } else {
      out.add((Integer) v);
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }
}
