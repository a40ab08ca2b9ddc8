package dev.minibatch.processor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.RecordComponentElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Types;

/**
 * Finds the {@code @Provides} members of a sample type: record components; fields (read directly, or
 * through their getter when private — how a Kotlin {@code val} looks to Java); getter methods.
 * Classification only: it decides how a member would be read and never reports anything.
 */
final class Members {
  private final Types types;

  Members(Types types) {
    this.types = types;
  }

  List<Member> of(TypeElement sample) {
    List<Member> out = new ArrayList<>();
    Set<String> componentNames = new HashSet<>();
    for (RecordComponentElement rc : sample.getRecordComponents()) {
      componentNames.add(rc.getSimpleName().toString());
      Optional<AnnotationMirror> m = Annotations.find(rc, Annotations.PROVIDES);
      if (m.isPresent()) {
        ExecutableElement accessor = rc.getAccessor();
        String read = (accessor != null ? accessor.getSimpleName() : rc.getSimpleName()) + "()";
        // javac (17) gives record components no source position; the component's private field
        // carries the same annotation (propagated) and has one, so diagnostics point there.
        Element reportOn = rc;
        AnnotationMirror mirror = m.get();
        for (VariableElement f : ElementFilter.fieldsIn(sample.getEnclosedElements())) {
          Optional<AnnotationMirror> fm = Annotations.find(f, Annotations.PROVIDES);
          if (f.getSimpleName().equals(rc.getSimpleName()) && fm.isPresent()) {
            reportOn = f;
            mirror = fm.get();
          }
        }
        out.add(new Member(reportOn, mirror, rc.getSimpleName().toString(), rc.asType(), read, null));
      }
    }
    boolean record = sample.getKind() == ElementKind.RECORD;
    for (Element e : sample.getEnclosedElements()) {
      Optional<AnnotationMirror> m = Annotations.find(e, Annotations.PROVIDES);
      if (m.isEmpty()) {
        continue;
      }
      String simple = e.getSimpleName().toString();
      if (e instanceof VariableElement field && e.getKind() == ElementKind.FIELD) {
        if (record && componentNames.contains(simple)) {
          continue; // the component's private field: the annotation was propagated to it
        }
        out.add(field(sample, field, m.get()));
      } else if (e instanceof ExecutableElement method && e.getKind() == ElementKind.METHOD) {
        if (record && componentNames.contains(simple) && method.getParameters().isEmpty()) {
          continue; // the component's accessor: the annotation was propagated to it
        }
        String read = method.getModifiers().contains(Modifier.PRIVATE) ? null : simple + "()";
        out.add(new Member(method, m.get(), propertyOf(simple), method.getReturnType(), read,
            read == null ? "the method is private" : null));
      }
    }
    return out;
  }

  private Member field(TypeElement sample, VariableElement field, AnnotationMirror m) {
    String name = field.getSimpleName().toString();
    if (!field.getModifiers().contains(Modifier.PRIVATE)) {
      return new Member(field, m, name, field.asType(), name, null);
    }
    String cap = capitalize(name);
    for (ExecutableElement method : ElementFilter.methodsIn(sample.getEnclosedElements())) {
      String mn = method.getSimpleName().toString();
      boolean named = mn.equals("get" + cap) || mn.equals("is" + cap)
          || (name.startsWith("is") && mn.equals(name)); // Kotlin: val isReady -> isReady()
      if (named
          && method.getParameters().isEmpty()
          && !method.getModifiers().contains(Modifier.PRIVATE)
          && !method.getModifiers().contains(Modifier.STATIC)
          && types.isSameType(types.erasure(method.getReturnType()), types.erasure(field.asType()))) {
        return new Member(field, m, name, field.asType(), mn + "()", null);
      }
    }
    return new Member(field, m, name, field.asType(), null,
        "the field is private and has no non-private getter get" + cap + "()"
            + (field.asType().getKind() == TypeKind.BOOLEAN ? " or is" + cap + "()" : "")
            + "; make the field package-private or add the getter");
  }

  /** The JavaBeans property of a getter name: {@code getImage} → {@code image}, {@code isOn} → {@code on}. */
  static String propertyOf(String methodName) {
    for (String prefix : new String[] {"get", "is"}) {
      if (methodName.length() > prefix.length()
          && methodName.startsWith(prefix)
          && Character.isUpperCase(methodName.charAt(prefix.length()))) {
        return decapitalize(methodName.substring(prefix.length()));
      }
    }
    return methodName;
  }

  /** {@code java.beans.Introspector.decapitalize}: {@code Image} → {@code image}, {@code URL} stays. */
  static String decapitalize(String s) {
    if (s.length() > 1 && Character.isUpperCase(s.charAt(1)) && Character.isUpperCase(s.charAt(0))) {
      return s;
    }
    return Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }

  static String capitalize(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  /** The generated accessor of a property: {@code image} → {@code getImage}. */
  static String accessorOf(String property) {
    return "get" + capitalize(property);
  }

  /** The name constant of a property: {@code softmaxLabel} → {@code SOFTMAX_LABEL}. */
  static String constantOf(String property) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < property.length(); i++) {
      char c = property.charAt(i);
      if (Character.isUpperCase(c) && i > 0 && !Character.isUpperCase(property.charAt(i - 1))
          && property.charAt(i - 1) != '_') {
        sb.append('_');
      }
      sb.append(c == '$' ? '_' : Character.toUpperCase(c));
    }
    String s = sb.toString().toUpperCase(Locale.ROOT);
    return s.startsWith("_") && s.length() > 1 ? s.substring(1) : s;
  }
}
