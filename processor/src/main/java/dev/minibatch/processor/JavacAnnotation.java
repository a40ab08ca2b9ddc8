package dev.minibatch.processor;

import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.Position;
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
 * An annotation read through its {@link AnnotationMirror}, never {@code getAnnotation()}: values
 * keep their {@link AnnotationValue}s, which javac can point at, and nothing loads the annotation
 * classes.
 */
record JavacAnnotation(Element element, AnnotationMirror mirror, Elements elements) implements AnnotationData {
  /** The annotation {@code qualifiedName} on {@code e}, if present. */
  static Optional<AnnotationData> find(Element e, String qualifiedName, Elements elements) {
    for (AnnotationMirror m : e.getAnnotationMirrors()) {
      Element type = m.getAnnotationType().asElement();
      if (type instanceof TypeElement t && t.getQualifiedName().contentEquals(qualifiedName)) {
        return Optional.of(new JavacAnnotation(e, m, elements));
      }
    }
    return Optional.empty();
  }

  @Override
  public Position position() {
    return new JavacPosition(element, mirror, null);
  }

  @Override
  public Object value(String attribute) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e
        : elements.getElementValuesWithDefaults(mirror).entrySet()) {
      if (e.getKey().getSimpleName().contentEquals(attribute)) {
        return plain(e.getValue().getValue());
      }
    }
    throw new IllegalArgumentException("no attribute " + attribute + " on " + mirror);
  }

  @Override
  public @Nullable Position explicit(String attribute) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e : mirror.getElementValues().entrySet()) {
      if (e.getKey().getSimpleName().contentEquals(attribute)) {
        return new JavacPosition(element, mirror, e.getValue());
      }
    }
    return null;
  }

  /** An enum constant as its simple name, an array as the list of its values. */
  static Object plain(Object v) {
    if (v instanceof VariableElement constant) {
      return constant.getSimpleName().toString();
    }
    if (v instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      for (Object o : list) {
        out.add(plain(((AnnotationValue) o).getValue()));
      }
      return out;
    }
    return v;
  }
}
