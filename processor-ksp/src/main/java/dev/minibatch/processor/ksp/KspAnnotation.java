package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.symbol.FileLocation;
import com.google.devtools.ksp.symbol.KSAnnotated;
import com.google.devtools.ksp.symbol.KSAnnotation;
import com.google.devtools.ksp.symbol.KSClassDeclaration;
import com.google.devtools.ksp.symbol.KSDeclaration;
import com.google.devtools.ksp.symbol.KSName;
import com.google.devtools.ksp.symbol.KSNode;
import com.google.devtools.ksp.symbol.KSType;
import com.google.devtools.ksp.symbol.KSValueArgument;
import com.google.devtools.ksp.symbol.Origin;
import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.Position;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A {@link KSAnnotation} as the core's {@link AnnotationData}. KSP2 lists every argument, the
 * defaults with origin {@code SYNTHETIC}. Positions are the most precise node that has a source
 * line: the argument, else the annotation, else {@code owner} (the member or type it belongs to):
 * KSP2 gives annotations on Kotlin properties, and the annotations and arguments of Java record
 * components, no location of their own.
 */
record KspAnnotation(KSAnnotation annotation, KSNode owner) implements AnnotationData {
  /** The annotation named {@code qualifiedName} among {@code annotations}, or null. */
  static @Nullable KspAnnotation find(KSAnnotated on, String qualifiedName, KSNode owner) {
    return find(on.getAnnotations().iterator(), qualifiedName, owner, null);
  }

  /**
   * The annotation named {@code qualifiedName} among {@code annotations} whose use-site target is
   * {@code target} (a Kotlin {@code AnnotationUseSiteTarget}, or null for none), or null.
   */
  static @Nullable KspAnnotation find(Iterator<KSAnnotation> annotations, String qualifiedName, KSNode owner,
      com.google.devtools.ksp.symbol.@Nullable AnnotationUseSiteTarget target) {
    String simple = qualifiedName.substring(qualifiedName.lastIndexOf('.') + 1);
    while (annotations.hasNext()) {
      KSAnnotation a = annotations.next();
      if (a.getShortName().asString().equals(simple) && a.getUseSiteTarget() == target && named(a, qualifiedName)) {
        return new KspAnnotation(a, owner);
      }
    }
    return null;
  }

  private static boolean named(KSAnnotation a, String qualifiedName) {
    KSName n = a.getAnnotationType().resolve().getDeclaration().getQualifiedName();
    return n != null && n.asString().equals(qualifiedName);
  }

  @Override
  public Position position() {
    return new KspPosition(located(annotation) ? annotation : owner);
  }

  @Override
  public Object value(String attribute) {
    for (KSValueArgument a : annotation.getArguments()) {
      if (a.getName() != null && a.getName().asString().equals(attribute)) {
        return plain(a.getValue());
      }
    }
    for (KSValueArgument a : annotation.getDefaultArguments()) {
      if (a.getName() != null && a.getName().asString().equals(attribute)) {
        return plain(a.getValue());
      }
    }
    throw new IllegalArgumentException("no attribute " + attribute + " on " + annotation);
  }

  @Override
  public @Nullable Position explicit(String attribute) {
    for (KSValueArgument a : annotation.getArguments()) {
      if (a.getName() != null && a.getName().asString().equals(attribute) && a.getOrigin() != Origin.SYNTHETIC) {
        return located(a) ? new KspPosition(a) : position();
      }
    }
    return null;
  }

  private static boolean located(KSNode node) {
    return node.getLocation() instanceof FileLocation;
  }

  /** An enum constant as its simple name, an array as the list of its values. */
  private static Object plain(@Nullable Object v) {
    if (v instanceof KSClassDeclaration entry) {
      return entry.getSimpleName().asString();
    }
    if (v instanceof KSType type) {
      KSDeclaration d = type.getDeclaration();
      return d.getSimpleName().asString();
    }
    if (v instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      for (Object o : list) {
        out.add(plain(o));
      }
      return out;
    }
    if (v == null) {
      throw new IllegalStateException("KSP gave no value");
    }
    return v;
  }
}
