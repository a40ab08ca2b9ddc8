package dev.minibatch.processor;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.WildcardTypeName;
import java.util.List;
import javax.lang.model.element.Modifier;

/**
 * Writes the collate method: one call per batch. Per batch it fetches every member's typed view; per
 * row it reads each member once, check its lengths against the declared
 * shape, and copy it into its row of the batch buffer through a typed NIO view — one absolute bulk
 * {@code put} per innermost row when the Java type is the buffer's type, an element loop with a
 * primitive cast otherwise. No reflection, boxing or allocation; errors go through the runtime's
 * {@code Collate} so the message is {@code ShapeCheck.sampleMismatch}'s.
 */
final class CollateWriter {
  private CollateWriter() {}

  static MethodSpec collateMethod(SampleDescriptor d) {
    MethodSpec.Builder m = MethodSpec.methodBuilder("collate")
        .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
        .addJavadoc("Copies {@code samples.get(positions[row])} into row {@code row} of the batch buffers, for\n"
            + "every row in {@code [from, to)}; {@code indices[row]} is the sample's index in its source.\n")
        .addParameter(ParameterizedTypeName.get(ClassName.get(List.class), WildcardTypeName.subtypeOf(d.sample())),
            "samples")
        .addParameter(int[].class, "positions")
        .addParameter(long[].class, "indices")
        .addParameter(int.class, "from")
        .addParameter(int.class, "to")
        .addParameter(RuntimeNames.COLLATE_TARGET, "target");
    List<FieldDescriptor> fields = d.fields();
    // Per batch: the typed view (or array) of every member.
    for (int i = 0; i < fields.size(); i++) {
      FieldDescriptor f = fields.get(i);
      if (f.storage() == FieldType.Storage.INDARRAY) {
        m.addStatement("$T out$L = target.array($L)", RuntimeNames.INDARRAY, i, i);
      } else {
        m.addStatement("$T out$L = target.$L($L)", bufferType(f), i, ProviderWriter.viewMethod(f.dtype()), i);
      }
    }
    // Per row: read each member once, check it, bulk-copy it.
    m.beginControlFlow("for (int row = from; row < to; row++)");
    m.addStatement("$T sample = samples.get(positions[row])", d.sample());
    m.beginControlFlow("if (sample == null)");
    m.addStatement("throw $T.nullSample(indices[row])", RuntimeNames.COLLATE);
    m.endControlFlow();
    for (int i = 0; i < fields.size(); i++) {
      m.addCode(field(fields.get(i), i));
    }
    m.endControlFlow();
    return m.build();
  }

  private static CodeBlock field(FieldDescriptor f, int position) {
    String v = "v" + position;
    String out = "out" + position;
    String shape = ProviderWriter.shapeConstant(f);
    CodeBlock.Builder c = CodeBlock.builder();
    c.add("// $L: $L $L\n", f.name(), f.dtype(), BatchWriter.batchShape(f));
    switch (f.storage()) {
      case SCALAR: {
        String value = convert("sample." + f.read(), f.primitive(), f.dtype());
        c.addStatement("$L.put(row, $L)", out, value);
        break;
      }
      case INDARRAY: {
        c.addStatement("$T $L = sample.$L", RuntimeNames.INDARRAY, v, f.read());
        nullCheck(c, f, v);
        c.addStatement("$T.indarray($S, indices[row], $L, $L, $L, row)", RuntimeNames.COLLATE, f.name(), shape,
            v, out);
        break;
      }
      case ARRAY: {
        TypeName type = ProviderWriter.arrayOf(f.primitive(), f.arrayRank());
        c.addStatement("$T $L = sample.$L", type, v, f.read());
        nullCheck(c, f, v);
        long count = f.elementCount();
        if (f.arrayRank() == 1) {
          c.beginControlFlow("if ($L.length != $L)", v, count);
          c.addStatement("throw $T.mismatch($S, indices[row], $L, $L)", RuntimeNames.COLLATE, f.name(), shape, v);
          c.endControlFlow();
          copyRow(c, f, out, v, "row * " + count, count);
        } else {
          nested(c, f, position, v, shape, out);
        }
        break;
      }
    }
    return c.build();
  }

  /** Nested loops over the outer axes, a bulk copy of the innermost axis. */
  private static void nested(CodeBlock.Builder c, FieldDescriptor f, int position, String root, String shape,
      String out) {
    List<Integer> dims = f.shape();
    int rank = dims.size();
    c.beginControlFlow("if ($L.length != $L)", root, dims.get(0));
    c.addStatement("throw $T.mismatch($S, indices[row], $L, $L)", RuntimeNames.COLLATE, f.name(), shape, root);
    c.endControlFlow();
    String at = "at" + position;
    c.addStatement("int $L = row * $L", at, f.elementCount());
    String parent = root;
    for (int axis = 0; axis < rank - 1; axis++) {
      String i = "i" + position + "_" + axis;
      String child = root + "_" + (axis + 1);
      c.beginControlFlow("for (int $L = 0; $L < $L; $L++)", i, i, dims.get(axis), i);
      c.addStatement("$T $L = $L[$L]", ProviderWriter.arrayOf(f.primitive(), rank - axis - 1), child, parent, i);
      c.beginControlFlow("if ($L == null || $L.length != $L)", child, child, dims.get(axis + 1));
      c.addStatement("throw $T.mismatch($S, indices[row], $L, $L)", RuntimeNames.COLLATE, f.name(), shape, root);
      c.endControlFlow();
      parent = child;
    }
    copyRow(c, f, out, parent, at, dims.get(rank - 1));
    c.addStatement("$L += $L", at, dims.get(rank - 1));
    for (int axis = 0; axis < rank - 1; axis++) {
      c.endControlFlow();
    }
  }

  /** Copies {@code length} elements of {@code src} to {@code out} at {@code at}. */
  private static void copyRow(CodeBlock.Builder c, FieldDescriptor f, String out, String src, String at, long length) {
    if (ProviderWriter.bufferElement(f.dtype()).equals(f.primitive())) {
      c.addStatement("$L.put($L, $L, 0, $L)", out, at, src, length);
    } else {
      c.beginControlFlow("for (int j = 0; j < $L; j++)", length);
      c.addStatement("$L.put($L + j, $L)", out, at, convert(src + "[j]", f.primitive(), f.dtype()));
      c.endControlFlow();
    }
  }

  private static void nullCheck(CodeBlock.Builder c, FieldDescriptor f, String v) {
    c.beginControlFlow("if ($L == null)", v);
    c.addStatement("throw $T.nullMember($S, indices[row])", RuntimeNames.COLLATE, f.name());
    c.endControlFlow();
  }

  private static TypeName bufferType(FieldDescriptor f) {
    String view = switch (ProviderWriter.bufferElement(f.dtype())) {
      case "byte" -> "ByteBuffer";
      case "short" -> "ShortBuffer";
      case "char" -> "CharBuffer";
      case "int" -> "IntBuffer";
      case "long" -> "LongBuffer";
      case "float" -> "FloatBuffer";
      default -> "DoubleBuffer";
    };
    return com.palantir.javapoet.ClassName.get("java.nio", view);
  }

  /** {@code expr} (of Java type {@code primitive}) as the buffer's element type. */
  private static String convert(String expr, String primitive, dev.minibatch.DType dtype) {
    String to = ProviderWriter.bufferElement(dtype);
    if (primitive.equals("boolean")) {
      return to.equals("byte") || to.equals("short") || to.equals("char")
          ? "(" + to + ") (" + expr + " ? 1 : 0)"
          : "(" + expr + " ? 1 : 0)";
    }
    if (to.equals(primitive)) {
      return expr;
    }
    boolean widening = switch (primitive) {
      case "byte" -> !to.equals("char");
      case "short" -> !to.equals("byte") && !to.equals("char");
      case "char" -> to.equals("int") || to.equals("long") || to.equals("float") || to.equals("double");
      case "int" -> to.equals("long") || to.equals("float") || to.equals("double");
      case "long" -> to.equals("float") || to.equals("double");
      case "float" -> to.equals("double");
      default -> false;
    };
    return widening ? expr : "(" + to + ") " + expr;
  }
}
