package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.processing.Resolver;
import com.google.devtools.ksp.symbol.AnnotationUseSiteTarget;
import com.google.devtools.ksp.symbol.ClassKind;
import com.google.devtools.ksp.symbol.FileLocation;
import com.google.devtools.ksp.symbol.FunctionKind;
import com.google.devtools.ksp.symbol.KSDeclaration;
import com.google.devtools.ksp.symbol.KSFunctionDeclaration;
import com.google.devtools.ksp.symbol.KSPropertyDeclaration;
import com.google.devtools.ksp.symbol.KSPropertyGetter;
import com.google.devtools.ksp.symbol.KSValueParameter;
import com.google.devtools.ksp.symbol.Modifier;
import com.google.devtools.ksp.symbol.Origin;
import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.SourceMember;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import kotlin.sequences.SequencesKt;
import org.jspecify.annotations.Nullable;

/**
 * The fields and methods of a {@link KspType} as Java sees them. A Java class's fields and methods
 * are themselves, in source order (KSP2 groups them by kind, so they are sorted by line). A Kotlin
 * property is what kapt's stub shows: its backing field (private, carrying {@code @Provides}
 * written without a use-site target or as {@code @field:}), and its getter ({@code getX()}, or
 * {@code isX()} for {@code isX}, carrying {@code @get:Provides}); fields first, then methods, as in
 * the stub. A Java record's components are its accessors, with the annotations KSP2 keeps on the
 * canonical constructor's parameters.
 */
final class KspMembers {
  private final KspType type;
  private final Resolver resolver;
  private final KspTypes types;

  KspMembers(KspType type) {
    this.type = type;
    this.resolver = type.resolver();
    this.types = new KspTypes(resolver);
  }

  List<SourceMember> members() {
    List<KSDeclaration> declared = SequencesKt.toList(resolver.getDeclarationsInSourceOrder(type.declaration()));
    boolean kotlin = type.declaration().getOrigin() == Origin.KOTLIN;
    if (!kotlin) {
      declared = new ArrayList<>(declared);
      declared.sort(Comparator.comparingInt(KspMembers::line));
    }
    // Java: one list in source order. Kotlin: the stub's order, every field before every method.
    List<SourceMember> fields = new ArrayList<>();
    List<SourceMember> methods = kotlin ? new ArrayList<>() : fields;
    Set<String> components = type.isRecord() ? componentNames() : Set.of();
    for (KSDeclaration d : declared) {
      if (d instanceof KSPropertyDeclaration p) {
        if (kotlin) {
          kotlinProperty(p, fields, methods);
        } else {
          fields.add(javaField(p));
        }
      } else if (d instanceof KSFunctionDeclaration f && f.getFunctionKind() != FunctionKind.ANONYMOUS
          && !f.getSimpleName().asString().equals("<init>")) {
        if (components.contains(f.getSimpleName().asString()) && f.getParameters().isEmpty()) {
          continue; // a record's accessor: the component itself
        }
        methods.add(method(f));
      }
    }
    if (kotlin) {
      fields.addAll(methods);
    }
    return fields;
  }

  List<SourceMember> recordComponents() {
    List<SourceMember> out = new ArrayList<>();
    KSFunctionDeclaration canonical = canonicalConstructor();
    for (KSDeclaration d : SequencesKt.toList(resolver.getDeclarationsInSourceOrder(type.declaration()))) {
      if (d instanceof KSFunctionDeclaration f && canonical != null && f.getParameters().isEmpty()
          && parameter(canonical, f.getSimpleName().asString()) != null) {
        KSValueParameter p = parameter(canonical, f.getSimpleName().asString());
        String descriptor = resolver.mapToJvmSignature(f);
        out.add(new SourceMember(f.getSimpleName().asString(), SourceMember.Kind.RECORD_COMPONENT, false, false, 0,
            types.ofReturn(f.getReturnType(), descriptor == null ? "()V" : descriptor),
            KspAnnotation.find(p, AnnotationData.PROVIDES, f), new KspPosition(f), null));
      }
    }
    return out;
  }

  private Set<String> componentNames() {
    Set<String> out = new java.util.HashSet<>();
    for (SourceMember m : recordComponents()) {
      out.add(m.name());
    }
    return out;
  }

  /** The record's canonical constructor: the one KSP2 synthesizes, whose parameters carry the components' annotations. */
  private @Nullable KSFunctionDeclaration canonicalConstructor() {
    KSFunctionDeclaration found = null;
    for (Iterator<KSDeclaration> it = type.declaration().getDeclarations().iterator(); it.hasNext(); ) {
      if (it.next() instanceof KSFunctionDeclaration f && f.getSimpleName().asString().equals("<init>")
          && (found == null || f.getOrigin() == Origin.SYNTHETIC)) {
        found = f;
      }
    }
    return found;
  }

  private static @Nullable KSValueParameter parameter(KSFunctionDeclaration f, String name) {
    for (KSValueParameter p : f.getParameters()) {
      if (p.getName() != null && p.getName().asString().equals(name)) {
        return p;
      }
    }
    return null;
  }

  private SourceMember javaField(KSPropertyDeclaration p) {
    Set<Modifier> m = p.getModifiers();
    return new SourceMember(p.getSimpleName().asString(), SourceMember.Kind.FIELD, m.contains(Modifier.JAVA_STATIC),
        m.contains(Modifier.PRIVATE), 0, types.of(p.getType(), signature(p)),
        KspAnnotation.find(p, AnnotationData.PROVIDES, p), new KspPosition(p), null);
  }

  private SourceMember method(KSFunctionDeclaration f) {
    Set<Modifier> m = f.getModifiers();
    // An object's functions are instance methods of its INSTANCE unless @JvmStatic, as in kapt's stub.
    boolean isStatic = m.contains(Modifier.JAVA_STATIC) || annotated(f, "JvmStatic");
    int parameters = f.getParameters().size() + (f.getExtensionReceiver() != null ? 1 : 0);
    String jvmName = resolver.getJvmName(f);
    SourceMember.Kotlin kotlin = f.getOrigin() == Origin.KOTLIN && f.getReturnType() != null
        ? KotlinTypes.of(f.getReturnType(), jvmName) : null;
    return new SourceMember(jvmName, SourceMember.Kind.METHOD, isStatic, m.contains(Modifier.PRIVATE),
        parameters, f.getReturnType() == null ? types.ofVoid() : types.ofReturn(f.getReturnType(), signature(f)),
        KspAnnotation.find(f, AnnotationData.PROVIDES, f), new KspPosition(f), kotlin);
  }

  /** A Kotlin property: its backing field, when it has one, and its getter. */
  private void kotlinProperty(KSPropertyDeclaration p, List<SourceMember> fields, List<SourceMember> methods) {
    Set<Modifier> m = p.getModifiers();
    String name = p.getSimpleName().asString();
    String descriptor = signature(p);
    // An object's backing fields are static; its getters are instance methods unless @JvmStatic.
    boolean staticField = inObject() || m.contains(Modifier.CONST);
    KSPropertyGetter getter = p.getGetter();
    String getterName = getter == null ? null : resolver.getJvmName(getter);
    SourceMember.Kotlin kotlin = KotlinTypes.of(p.getType(), getterName);
    if (p.getHasBackingField()) {
      boolean exposed = m.contains(Modifier.CONST) || m.contains(Modifier.LATEINIT) || annotated(p, "JvmField");
      AnnotationData onField = KspAnnotation.find(p.getAnnotations().iterator(), AnnotationData.PROVIDES, p, null);
      if (onField == null) {
        onField = KspAnnotation.find(p.getAnnotations().iterator(), AnnotationData.PROVIDES, p,
            AnnotationUseSiteTarget.FIELD);
      }
      fields.add(new SourceMember(name, SourceMember.Kind.FIELD, staticField, !exposed || m.contains(Modifier.PRIVATE), 0,
          types.of(p.getType(), descriptor), onField, new KspPosition(p), kotlin));
    }
    if (getter != null && !annotated(p, "JvmField") && !m.contains(Modifier.CONST)) {
      AnnotationData onGetter = KspAnnotation.find(getter.getAnnotations().iterator(), AnnotationData.PROVIDES, p,
          AnnotationUseSiteTarget.GET);
      if (onGetter == null) {
        onGetter = KspAnnotation.find(p.getAnnotations().iterator(), AnnotationData.PROVIDES, p,
            AnnotationUseSiteTarget.GET);
      }
      boolean privateGetter = m.contains(Modifier.PRIVATE) || getter.getModifiers().contains(Modifier.PRIVATE);
      methods.add(new SourceMember(getterName, SourceMember.Kind.METHOD, annotated(p, "JvmStatic"),
          privateGetter,
          p.getExtensionReceiver() != null ? 1 : 0, types.of(p.getType(), descriptor), onGetter, new KspPosition(p),
          kotlin));
    }
  }

  /** True when {@code d} carries {@code kotlin.jvm.<simpleName>} ({@code JvmField}, {@code JvmStatic}). */
  private static boolean annotated(KSDeclaration d, String simpleName) {
    return KspAnnotation.find(d, "kotlin.jvm." + simpleName, d) != null;
  }

  private boolean inObject() {
    return type.declaration().getClassKind() == ClassKind.OBJECT;
  }

  private String signature(KSDeclaration d) {
    String s = resolver.mapToJvmSignature(d);
    return s == null ? "V" : s;
  }

  /** A declaration's source line, for sorting Java members into source order. */
  private static int line(KSDeclaration d) {
    return d.getLocation() instanceof FileLocation f ? f.getLineNumber() : Integer.MAX_VALUE;
  }
}
