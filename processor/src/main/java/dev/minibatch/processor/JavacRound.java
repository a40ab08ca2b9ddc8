package dev.minibatch.processor;

import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.Round;
import dev.minibatch.processor.internal.model.SourceType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.ElementFilter;
import org.jspecify.annotations.Nullable;

/** A javac {@link RoundEnvironment} as the core's {@link Round}. */
record JavacRound(ProcessingEnvironment env, RoundEnvironment round) implements Round {
  @Override
  public List<SourceType> dataProviderTypes() {
    List<SourceType> out = new ArrayList<>();
    TypeElement annotation = env.getElementUtils().getTypeElement(AnnotationData.DATA_PROVIDER);
    if (annotation != null) {
      for (Element e : round.getElementsAnnotatedWith(annotation)) {
        if (e instanceof TypeElement t) {
          out.add(new JavacType(t, env));
        }
      }
    }
    return out;
  }

  @Override
  public Set<String> declaredTypes() {
    Set<String> out = new HashSet<>();
    for (TypeElement t : ElementFilter.typesIn(round.getRootElements())) {
      collect(t, out);
    }
    return out;
  }

  private static void collect(TypeElement t, Set<String> out) {
    out.add(t.getQualifiedName().toString());
    for (TypeElement nested : ElementFilter.typesIn(t.getEnclosedElements())) {
      collect(nested, out);
    }
  }

  @Override
  public @Nullable SourceType type(String qualifiedName) {
    TypeElement t = env.getElementUtils().getTypeElement(qualifiedName);
    return t == null ? null : new JavacType(t, env);
  }

  @Override
  public boolean last() {
    return round.processingOver();
  }
}
