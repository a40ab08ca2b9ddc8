package dev.minibatch.processor;

import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.Position;
import dev.minibatch.processor.internal.model.SourceMember;
import dev.minibatch.processor.internal.model.SourceType;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.RecordComponentElement;
import javax.lang.model.element.TypeElement;
import org.jspecify.annotations.Nullable;

/** A {@link TypeElement} as the core's {@link SourceType}: its members as javac lists them. */
record JavacType(TypeElement element, ProcessingEnvironment env) implements SourceType {
  /** On every class kotlinc compiles, and on kapt's stub of it; never on a Java class. */
  private static final String KOTLIN_METADATA = "kotlin.Metadata";

  @Override
  public String qualifiedName() {
    return element.getQualifiedName().toString();
  }

  @Override
  public String simpleName() {
    return element.getSimpleName().toString();
  }

  @Override
  public String packageName() {
    return env.getElementUtils().getPackageOf(element).getQualifiedName().toString();
  }

  @Override
  public Kind kind() {
    return switch (element.getKind()) {
      case RECORD -> Kind.RECORD;
      case INTERFACE -> Kind.INTERFACE;
      case ENUM -> Kind.ENUM;
      case ANNOTATION_TYPE -> Kind.ANNOTATION;
      default -> Kind.CLASS;
    };
  }

  @Override
  public boolean isAbstract() {
    return element.getModifiers().contains(Modifier.ABSTRACT);
  }

  @Override
  public boolean isKotlin() {
    for (AnnotationMirror a : element.getAnnotationMirrors()) {
      if (((TypeElement) a.getAnnotationType().asElement()).getQualifiedName().contentEquals(KOTLIN_METADATA)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean isPrivate() {
    return element.getModifiers().contains(Modifier.PRIVATE);
  }

  @Override
  public boolean isInnerOrLocal() {
    Element enclosing = element.getEnclosingElement();
    return enclosing.getKind() != ElementKind.PACKAGE
        && (!element.getModifiers().contains(Modifier.STATIC) && element.getKind() == ElementKind.CLASS
            || !(enclosing instanceof TypeElement));
  }

  @Override
  public @Nullable SourceType enclosingType() {
    return element.getEnclosingElement() instanceof TypeElement t ? new JavacType(t, env) : null;
  }

  @Override
  public @Nullable AnnotationData dataProvider() {
    return annotation(element, AnnotationData.DATA_PROVIDER);
  }

  @Override
  public List<SourceMember> recordComponents() {
    List<SourceMember> out = new ArrayList<>();
    for (RecordComponentElement rc : element.getRecordComponents()) {
      out.add(new SourceMember(rc.getSimpleName().toString(), SourceMember.Kind.RECORD_COMPONENT, false, false, 0,
          JavacTypes.of(rc.asType(), env.getTypeUtils()), annotation(rc, AnnotationData.PROVIDES),
          new JavacPosition(rc, null, null), null));
    }
    return out;
  }

  @Override
  public List<SourceMember> members() {
    List<SourceMember> out = new ArrayList<>();
    // A Kotlin class's stub: what each member's property or function declared, from its metadata.
    KotlinMetadata kotlin = isKotlin() ? KotlinMetadata.of(element, env.getElementUtils()) : null;
    for (Element e : element.getEnclosedElements()) {
      String name = e.getSimpleName().toString();
      if (e.getKind() == ElementKind.FIELD) {
        out.add(member(e, SourceMember.Kind.FIELD, 0, e.asType(), kotlin == null ? null : kotlin.field(name)));
      } else if (e instanceof ExecutableElement m && e.getKind() == ElementKind.METHOD) {
        out.add(member(e, SourceMember.Kind.METHOD, m.getParameters().size(), m.getReturnType(),
            kotlin == null ? null : kotlin.method(name)));
      }
    }
    if (kotlin != null) {
      for (KotlinMetadata.DroppedGetter g : kotlin.droppedGetters()) {
        out.add(dropped(g));
      }
    }
    return out;
  }

  /**
   * A {@code @get:Provides} getter kapt's stub left out, as the member KSP sees, on the property's
   * backing field (or the class, for a property without one). Its {@code @Provides} has default
   * values: the member is only ever reported ({@code ValueClass}), never generated. Without it kapt
   * would generate the sample without the member, where KSP2 reports it.
   */
  private SourceMember dropped(KotlinMetadata.DroppedGetter g) {
    Element at = element;
    javax.lang.model.type.TypeMirror type = null;
    String field = g.field();
    for (Element e : element.getEnclosedElements()) {
      if (field != null && e.getKind() == ElementKind.FIELD && e.getSimpleName().contentEquals(field)) {
        at = e;
        type = e.asType();
      }
    }
    if (type == null) {
      type = JvmDescriptors.returnType(g.descriptor(), env);
    }
    Position position = new JavacPosition(at, null, null);
    return new SourceMember(g.name(), SourceMember.Kind.METHOD, false, false, 0,
        JavacTypes.of(type, env.getTypeUtils()), new DefaultProvides(position, env.getElementUtils()), position,
        g.kotlin());
  }

  private SourceMember member(Element e, SourceMember.Kind kind, int parameters, javax.lang.model.type.TypeMirror type,
      SourceMember.@Nullable Kotlin kotlin) {
    return new SourceMember(e.getSimpleName().toString(), kind, e.getModifiers().contains(Modifier.STATIC),
        e.getModifiers().contains(Modifier.PRIVATE), parameters, JavacTypes.of(type, env.getTypeUtils()),
        annotation(e, AnnotationData.PROVIDES), new JavacPosition(e, null, null), kotlin);
  }

  private @Nullable AnnotationData annotation(Element e, String name) {
    return JavacAnnotation.find(e, name, env.getElementUtils()).orElse(null);
  }

  @Override
  public Position position() {
    return new JavacPosition(element, null, null);
  }
}
