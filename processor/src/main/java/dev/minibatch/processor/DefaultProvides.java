package dev.minibatch.processor;

import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.Position;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;
import org.jspecify.annotations.Nullable;

/**
 * A {@code @Provides} known to be there but not readable: on a getter kapt's stub left out. Its
 * values are the annotation's defaults, and none is explicit.
 */
record DefaultProvides(Position position, Elements elements) implements AnnotationData {
  @Override
  public Object value(String attribute) {
    TypeElement provides = elements.getTypeElement(PROVIDES);
    if (provides != null) {
      for (Element e : provides.getEnclosedElements()) {
        if (e instanceof ExecutableElement m && m.getSimpleName().contentEquals(attribute)) {
          AnnotationValue d = m.getDefaultValue();
          if (d != null) {
            return JavacAnnotation.plain(d.getValue());
          }
        }
      }
    }
    throw new IllegalArgumentException("no default for " + attribute + " of " + PROVIDES);
  }

  @Override
  public @Nullable Position explicit(String attribute) {
    return null;
  }
}
