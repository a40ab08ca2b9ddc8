package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.processing.Resolver;
import com.google.devtools.ksp.symbol.ClassKind;
import com.google.devtools.ksp.symbol.KSClassDeclaration;
import com.google.devtools.ksp.symbol.KSName;
import com.google.devtools.ksp.symbol.KSTypeReference;
import com.google.devtools.ksp.symbol.Modifier;
import com.google.devtools.ksp.symbol.Origin;
import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.Position;
import dev.minibatch.processor.internal.model.SourceMember;
import dev.minibatch.processor.internal.model.SourceType;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A {@link KSClassDeclaration}, Java or Kotlin, as the core's {@link SourceType}: the kind,
 * modifiers and members Java sees ({@link KspMembers}), so a Kotlin class looks as it does to kapt.
 */
record KspType(KSClassDeclaration declaration, Resolver resolver) implements SourceType {
  @Override
  public String qualifiedName() {
    KSName n = declaration.getQualifiedName();
    return n == null ? simpleName() : n.asString();
  }

  @Override
  public String simpleName() {
    return declaration.getSimpleName().asString();
  }

  @Override
  public String packageName() {
    return declaration.getPackageName().asString();
  }

  @Override
  public Kind kind() {
    return switch (declaration.getClassKind()) {
      case INTERFACE -> Kind.INTERFACE;
      case ENUM_CLASS -> Kind.ENUM;
      case ANNOTATION_CLASS -> Kind.ANNOTATION;
      default -> isRecord() ? Kind.RECORD : Kind.CLASS;
    };
  }

  /** A Java record: KSP2 shows it as a class extending {@code java.lang.Record}. */
  boolean isRecord() {
    if (declaration.getOrigin() != Origin.JAVA && declaration.getOrigin() != Origin.JAVA_LIB) {
      return false;
    }
    for (Iterator<KSTypeReference> it = declaration.getSuperTypes().iterator(); it.hasNext(); ) {
      KSName n = it.next().resolve().getDeclaration().getQualifiedName();
      if (n != null && n.asString().equals("java.lang.Record")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean isAbstract() {
    Set<Modifier> m = declaration.getModifiers();
    return m.contains(Modifier.ABSTRACT) || m.contains(Modifier.SEALED);
  }

  /** A Kotlin declaration, from this compilation's sources or from a Kotlin library. */
  @Override
  public boolean isKotlin() {
    return declaration.getOrigin() == Origin.KOTLIN || declaration.getOrigin() == Origin.KOTLIN_LIB;
  }

  @Override
  public boolean isPrivate() {
    return declaration.getModifiers().contains(Modifier.PRIVATE);
  }

  @Override
  public boolean isInnerOrLocal() {
    if (declaration.getParentDeclaration() == null) {
      return false;
    }
    if (!(declaration.getParentDeclaration() instanceof KSClassDeclaration)) {
      return true;
    }
    Set<Modifier> m = declaration.getModifiers();
    boolean java = declaration.getOrigin() == Origin.JAVA || declaration.getOrigin() == Origin.JAVA_LIB;
    // A Java member class is inner unless static (records, enums and interfaces are implicitly
    // static); a Kotlin nested class is static unless marked inner.
    return java ? declaration.getClassKind() == ClassKind.CLASS && !isRecord() && !m.contains(Modifier.JAVA_STATIC)
        : m.contains(Modifier.INNER);
  }

  @Override
  public @Nullable SourceType enclosingType() {
    return declaration.getParentDeclaration() instanceof KSClassDeclaration c ? new KspType(c, resolver) : null;
  }

  @Override
  public @Nullable AnnotationData dataProvider() {
    return KspAnnotation.find(declaration, AnnotationData.DATA_PROVIDER, declaration);
  }

  @Override
  public List<SourceMember> recordComponents() {
    return isRecord() ? new KspMembers(this).recordComponents() : List.of();
  }

  @Override
  public List<SourceMember> members() {
    return new KspMembers(this).members();
  }

  @Override
  public Position position() {
    return new KspPosition(declaration);
  }
}
