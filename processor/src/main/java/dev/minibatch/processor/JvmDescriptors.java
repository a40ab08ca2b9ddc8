package dev.minibatch.processor;

import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Types;

/** JVM descriptors ({@code ()[I}) as javac types, for members kapt's stub does not show. */
final class JvmDescriptors {
  private JvmDescriptors() {}

  /** The return type of the method descriptor {@code descriptor}. */
  static TypeMirror returnType(String descriptor, ProcessingEnvironment env) {
    return type(descriptor, descriptor.indexOf(')') + 1, env);
  }

  private static TypeMirror type(String d, int at, ProcessingEnvironment env) {
    Types types = env.getTypeUtils();
    return switch (d.charAt(at)) {
      case 'Z' -> types.getPrimitiveType(TypeKind.BOOLEAN);
      case 'B' -> types.getPrimitiveType(TypeKind.BYTE);
      case 'C' -> types.getPrimitiveType(TypeKind.CHAR);
      case 'S' -> types.getPrimitiveType(TypeKind.SHORT);
      case 'I' -> types.getPrimitiveType(TypeKind.INT);
      case 'J' -> types.getPrimitiveType(TypeKind.LONG);
      case 'F' -> types.getPrimitiveType(TypeKind.FLOAT);
      case 'D' -> types.getPrimitiveType(TypeKind.DOUBLE);
      case 'V' -> types.getNoType(TypeKind.VOID);
      case '[' -> types.getArrayType(type(d, at + 1, env));
      case 'L' -> {
        // A class the processor cannot see (it would fail to compile anyway) reads as Object.
        TypeElement t = env.getElementUtils().getTypeElement(
            d.substring(at + 1, d.indexOf(';', at)).replace('/', '.').replace('$', '.'));
        yield t != null ? types.erasure(t.asType())
            : env.getElementUtils().getTypeElement("java.lang.Object").asType();
      }
      default -> throw new IllegalArgumentException("not a JVM descriptor: " + d);
    };
  }
}
