package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.processing.Resolver;
import com.google.devtools.ksp.symbol.ClassKind;
import com.google.devtools.ksp.symbol.KSClassDeclaration;
import com.google.devtools.ksp.symbol.KSDeclaration;
import com.google.devtools.ksp.symbol.KSName;
import com.google.devtools.ksp.symbol.KSType;
import com.google.devtools.ksp.symbol.KSTypeArgument;
import com.google.devtools.ksp.symbol.KSTypeReference;
import com.google.devtools.ksp.symbol.Variance;
import dev.minibatch.processor.internal.model.TypeRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A member's type as Java sees it. The JVM descriptor KSP maps a declaration to decides what the
 * type is (primitive or boxed, array rank, class), exactly as javac or kapt's stubs see it: Kotlin
 * types and nullability cannot tell a Java {@code float} from a {@code Float} in a JSpecify
 * {@code @NullMarked} package. The type arguments, which the descriptor erases, come from the
 * {@link KSType}, in Java's names.
 */
final class KspTypes {
  private static final Map<Character, String> PRIMITIVES = Map.of('Z', "boolean", 'B', "byte", 'S', "short",
      'C', "char", 'I', "int", 'J', "long", 'F', "float", 'D', "double");
  private static final Map<String, String> PRIMITIVE_ARRAYS = Map.of("kotlin.BooleanArray", "boolean",
      "kotlin.ByteArray", "byte", "kotlin.ShortArray", "short", "kotlin.CharArray", "char", "kotlin.IntArray", "int",
      "kotlin.LongArray", "long", "kotlin.FloatArray", "float", "kotlin.DoubleArray", "double");
  private static final Pattern ERROR_NAME = Pattern.compile("<ERROR TYPE: ([^>]*)>");

  private final Resolver resolver;

  KspTypes(Resolver resolver) {
    this.resolver = resolver;
  }

  /** A field's (or property's backing field's) type: {@code descriptor} is its JVM type descriptor. */
  TypeRef of(KSTypeReference reference, String descriptor) {
    KSType type = reference.resolve();
    int rank = 0;
    while (descriptor.charAt(rank) == '[') {
      rank++;
    }
    char e = descriptor.charAt(rank);
    KSType element = stripArrays(type, rank);
    if (type.isError() || element.isError()) {
      String name = errorName(element, descriptor.substring(rank));
      return new TypeRef(name + "[]".repeat(rank), name + "[]".repeat(rank), rank, TypeRef.Kind.UNRESOLVED, name);
    }
    if (e == 'V') {
      return new TypeRef("void", "void", 0, TypeRef.Kind.VOID, "void");
    }
    String primitive = PRIMITIVES.get(e);
    if (primitive != null) {
      String text = primitive + "[]".repeat(rank);
      return new TypeRef(text, text, rank, TypeRef.Kind.PRIMITIVE, primitive);
    }
    String name = descriptor.substring(rank + 1, descriptor.length() - 1).replace('/', '.').replace('$', '.');
    KSDeclaration d = element.getDeclaration();
    TypeRef.Kind kind = d instanceof KSClassDeclaration c
        ? (c.getClassKind() == ClassKind.ENUM_CLASS ? TypeRef.Kind.ENUM : TypeRef.Kind.DECLARED)
        : TypeRef.Kind.OTHER;
    String erasure = name + "[]".repeat(rank);
    return new TypeRef(name + arguments(element) + "[]".repeat(rank), erasure, rank, kind, name);
  }

  /** {@code void}: a function without a declared return type KSP can resolve. */
  TypeRef ofVoid() {
    return new TypeRef("void", "void", 0, TypeRef.Kind.VOID, "void");
  }

  /** A method's return type: {@code descriptor} is the method's ({@code (I)[F}). */
  TypeRef ofReturn(KSTypeReference reference, String methodDescriptor) {
    return of(reference, methodDescriptor.substring(methodDescriptor.indexOf(')') + 1));
  }

  /** The element type of a Kotlin array type of {@code rank} ({@code Array<FloatArray>}, rank 2: {@code Float}). */
  private static KSType stripArrays(KSType type, int rank) {
    KSType t = type;
    for (int i = 0; i < rank; i++) {
      String q = qualifiedName(t);
      if (PRIMITIVE_ARRAYS.containsKey(q) || t.getArguments().isEmpty()) {
        return t;
      }
      KSTypeReference arg = t.getArguments().get(0).getType();
      if (arg == null) {
        return t;
      }
      t = arg.resolve();
    }
    return t;
  }

  /** The name the source wrote for an unresolved type, as javac prints it. */
  private static String errorName(KSType element, String descriptor) {
    Matcher m = ERROR_NAME.matcher(element.toString());
    if (m.find()) {
      return m.group(1);
    }
    return descriptor.startsWith("L") ? descriptor.substring(1, descriptor.length() - 1).replace('/', '.') : descriptor;
  }

  /** {@code <float[]>} for {@code List<FloatArray>}: type arguments as Java writes them; "" for none. */
  private String arguments(KSType type) {
    if (type.getArguments().isEmpty()) {
      return "";
    }
    List<String> args = new ArrayList<>();
    for (KSTypeArgument a : type.getArguments()) {
      KSTypeReference ref = a.getType();
      if (a.getVariance() == Variance.STAR || ref == null) {
        args.add("?");
        continue;
      }
      String text = boxed(ref.resolve());
      args.add(switch (a.getVariance()) {
        case COVARIANT -> "? extends " + text;
        case CONTRAVARIANT -> "? super " + text;
        default -> text;
      });
    }
    return "<" + String.join(", ", args) + ">";
  }

  /** A type in a type-argument position, where Java has no primitives. */
  private String boxed(KSType type) {
    String q = qualifiedName(type);
    String primitive = PRIMITIVE_ARRAYS.get(q);
    if (primitive != null) {
      return primitive + "[]";
    }
    if (q.equals("kotlin.Array") && !type.getArguments().isEmpty() && type.getArguments().get(0).getType() != null) {
      return boxed(type.getArguments().get(0).getType().resolve()) + "[]";
    }
    KSName java = resolver.mapKotlinNameToJava(resolver.getKSNameFromString(q));
    return (java != null ? java.asString() : q) + arguments(type);
  }

  private static String qualifiedName(KSType type) {
    KSName n = type.getDeclaration().getQualifiedName();
    return n == null ? type.getDeclaration().getSimpleName().asString() : n.asString();
  }
}
