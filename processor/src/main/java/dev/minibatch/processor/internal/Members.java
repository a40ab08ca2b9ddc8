package dev.minibatch.processor.internal;

import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.SourceMember;
import dev.minibatch.processor.internal.model.SourceType;
import dev.minibatch.processor.internal.model.TypeRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Finds the {@code @Provides} members of a sample type: record components; fields (read directly, or
 * through their getter when private — how a Kotlin {@code val} looks to Java); getter methods.
 * Classification only: it decides how a member would be read and never reports anything.
 */
final class Members {
  private Members() {}

  static List<Member> of(SourceType sample) {
    List<Member> out = new ArrayList<>();
    Set<String> componentNames = new HashSet<>();
    for (SourceMember rc : sample.recordComponents()) {
      componentNames.add(rc.name());
      AnnotationData m = rc.provides();
      if (m != null) {
        String read = rc.name() + "()";
        // javac (17) gives record components no source position; the component's private field
        // carries the same annotation (propagated) and has one, so diagnostics point there.
        SourceMember reportOn = rc;
        AnnotationData annotation = m;
        for (SourceMember f : sample.members()) {
          if (f.kind() == SourceMember.Kind.FIELD && f.name().equals(rc.name()) && f.provides() != null) {
            reportOn = f;
            annotation = f.provides();
          }
        }
        out.add(new Member(reportOn, annotation, rc.name(), rc.type(), read, null, "record component"));
      }
    }
    boolean record = sample.kind() == SourceType.Kind.RECORD;
    for (SourceMember e : sample.members()) {
      AnnotationData m = e.provides();
      if (m == null) {
        continue;
      }
      String simple = e.name();
      if (e.kind() == SourceMember.Kind.FIELD) {
        if (record && componentNames.contains(simple)) {
          continue; // the component's private field: the annotation was propagated to it
        }
        out.add(field(sample, e, m, record ? "record component" : "field"));
      } else if (e.kind() == SourceMember.Kind.METHOD) {
        if (record && componentNames.contains(simple) && e.parameters() == 0) {
          continue; // the component's accessor: the annotation was propagated to it
        }
        String read = e.isPrivate() ? null : simple + "()";
        out.add(new Member(e, m, propertyOf(simple), e.type(), read,
            read == null ? "the method is private" : null, "method"));
      }
    }
    return out;
  }

  private static Member field(SourceType sample, SourceMember field, AnnotationData m, String kind) {
    String name = field.name();
    if (!field.isPrivate()) {
      return new Member(field, m, name, field.type(), name, null, kind);
    }
    String cap = capitalize(name);
    for (SourceMember method : sample.members()) {
      if (method.kind() != SourceMember.Kind.METHOD) {
        continue;
      }
      String mn = method.name();
      boolean named = mn.equals("get" + cap) || mn.equals("is" + cap)
          || (name.startsWith("is") && mn.equals(name)); // Kotlin: val isReady -> isReady()
      if (named
          && method.parameters() == 0
          && !method.isPrivate()
          && !method.isStatic()
          && method.type().erasure().equals(field.type().erasure())) {
        return new Member(field, m, name, field.type(), mn + "()", null, kind);
      }
    }
    TypeRef type = field.type();
    boolean bool = type.rank() == 0 && type.kind() == TypeRef.Kind.PRIMITIVE && type.name().equals("boolean");
    return new Member(field, m, name, type, null,
        "the field is private and has no non-private getter get" + cap + "()"
            + (bool ? " or is" + cap + "()" : "")
            + "; make the field package-private or add the getter", kind);
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
