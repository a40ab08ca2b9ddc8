package dev.minibatch.processor;

import dev.minibatch.processor.internal.model.TypeRef;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Types;

/** A {@link TypeMirror} as the core's {@link TypeRef}. */
final class JavacTypes {
  private JavacTypes() {}

  static TypeRef of(TypeMirror t, Types types) {
    int rank = 0;
    TypeMirror c = t;
    while (c.getKind() == TypeKind.ARRAY) {
      rank++;
      c = ((ArrayType) c).getComponentType();
    }
    TypeKind k = c.getKind();
    TypeRef.Kind kind;
    String name = c.toString();
    if (k.isPrimitive()) {
      kind = TypeRef.Kind.PRIMITIVE;
    } else if (k == TypeKind.VOID) {
      kind = TypeRef.Kind.VOID;
    } else if (k == TypeKind.ERROR) {
      kind = TypeRef.Kind.UNRESOLVED;
    } else if (k == TypeKind.DECLARED && ((DeclaredType) c).asElement() instanceof TypeElement te) {
      kind = te.getKind() == ElementKind.ENUM ? TypeRef.Kind.ENUM : TypeRef.Kind.DECLARED;
      name = te.getQualifiedName().toString();
    } else {
      kind = TypeRef.Kind.OTHER;
    }
    return new TypeRef(t.toString(), types.erasure(t).toString(), rank, kind, name);
  }
}
