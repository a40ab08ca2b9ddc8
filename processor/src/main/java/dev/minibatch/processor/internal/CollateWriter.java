package dev.minibatch.processor.internal;

import com.palantir.javapoet.ArrayTypeName;
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
    if (encoded(d)) {
      m.addParameter(ArrayTypeName.of(RuntimeNames.IMAGE_DECODER.annotated(
              com.palantir.javapoet.AnnotationSpec.builder(RuntimeNames.NULLABLE).build())), "decoders")
          .addJavadoc("{@code decoders[i]} decodes member {@code i} when it is an encoded image (null: left undecoded,\n"
              + "for the shard writer).\n");
    }
    List<FieldDescriptor> fields = d.fields();
    // Per batch: the typed view (or array) of every member.
    for (int i = 0; i < fields.size(); i++) {
      FieldDescriptor f = fields.get(i);
      if (f.encoded()) {
        // The decoder writes the row's pixels, UINT8 or FLOAT32, through the array's bytes.
        m.addStatement("$T out$L = target.bytes($L)", ClassName.get("java.nio", "ByteBuffer"), i, i);
      } else if (f.storage() == FieldType.Storage.INDARRAY) {
        m.addStatement("$T out$L = target.array($L)", RuntimeNames.INDARRAY, i, i);
      } else {
        m.addStatement("$T out$L = target.$L($L)", bufferType(f), i, ProviderWriter.viewMethod(f.dtype()), i);
      }
    }
    // Per batch: the padded length, the mask and the lengths of every length group.
    for (int g = 0; g < d.groups().size(); g++) {
      m.addStatement("int steps$L = target.steps($L)", g, g);
      m.addStatement("$T mask$L = target.mask($L)", ClassName.get("java.nio", "FloatBuffer"), g, g);
      m.addStatement("$T lengths$L = target.lengths($L)", ClassName.get("java.nio", "IntBuffer"), g, g);
    }
    if (!d.variable()) {
      pipelined(m, d);
      return m.build();
    }
    // Per row: read each member once, check it, bulk-copy it.
    m.beginControlFlow("for (int row = from; row < to; row++)");
    m.addStatement("$T sample = samples.get(positions[row])", d.sample());
    m.beginControlFlow("if (sample == null)");
    m.addStatement("throw $T.nullSample(indices[row])", RuntimeNames.COLLATE);
    m.endControlFlow();
    if (d.variable()) {
      m.addCode(sequencePreamble(d));
    }
    for (int i = 0; i < fields.size(); i++) {
      FieldDescriptor f = fields.get(i);
      m.addCode(f.variable() ? variableField(f, i) : field(f, i));
    }
    m.endControlFlow();
    return m.build();
  }

  /**
   * The row loop of a fixed-shape sample, two rows ahead. Iteration {@code next} checks the arrays
   * of sample {@code next - 1} (their outer lengths), reads sample {@code next} and its members (and
   * checks they are not null), then copies row {@code next - 2}. A shuffled epoch reads samples
   * scattered over the heap, and each read waits on memory, the sample first and then, through
   * it, its arrays: reading a sample one iteration and touching its arrays the next lets both
   * waits overlap the copies of earlier rows (0.62x to 0.96x of the heap gather limit in {@code
   * EngineBenchmark}). Every member is still read once per sample, in row order, so a source or
   * accessor with side effects sees the calls of a plain loop. The inner rows of a nested array
   * and the shape of an INDArray member are checked at the copy, after the two later samples were
   * read, so a batch with several bad samples may fail on a later one first; the engine then
   * names the first failing row ({@code BatchWriter}).
   */
  private static void pipelined(MethodSpec.Builder m, SampleDescriptor d) {
    List<FieldDescriptor> fields = d.fields();
    for (int i = 0; i < fields.size(); i++) {
      TypeName type = heldType(fields.get(i));
      m.addStatement("$T read$L = $L", type, i, type.isPrimitive() ? "0" : "null");
      m.addStatement("$T held$L = $L", type, i, type.isPrimitive() ? "0" : "null");
    }
    m.beginControlFlow("for (int next = from; next <= to + 1; next++)");
    for (int i = 0; i < fields.size(); i++) {
      m.addStatement("$T v$L = held$L", heldType(fields.get(i)), i, i);
      m.addStatement("held$L = read$L", i, i);
    }
    if (fields.stream().anyMatch(f -> f.storage() == FieldType.Storage.ARRAY)) {
      m.beginControlFlow("if (next > from && next <= to)");
      for (int i = 0; i < fields.size(); i++) {
        m.addCode(check(fields.get(i), i));
      }
      m.endControlFlow();
    }
    m.beginControlFlow("if (next < to)");
    m.addStatement("$T sample = samples.get(positions[next])", d.sample());
    m.beginControlFlow("if (sample == null)");
    m.addStatement("throw $T.nullSample(indices[next])", RuntimeNames.COLLATE);
    m.endControlFlow();
    for (int i = 0; i < fields.size(); i++) {
      m.addCode(read(fields.get(i), i));
    }
    m.endControlFlow();
    m.beginControlFlow("if (next > from + 1)");
    m.addStatement("int row = next - 2");
    for (int i = 0; i < fields.size(); i++) {
      m.addCode(copy(fields.get(i), i));
    }
    m.endControlFlow();
    m.endControlFlow();
  }

  /** True when some member is an encoded image: the collate then takes the provider's decoders. */
  static boolean encoded(SampleDescriptor d) {
    return d.fields().stream().anyMatch(FieldDescriptor::encoded);
  }

  /** Checks {@code held<position>} (member {@code f} of sample {@code next - 1}): an array's length. */
  private static CodeBlock check(FieldDescriptor f, int position) {
    String held = "held" + position;
    CodeBlock.Builder c = CodeBlock.builder();
    if (f.storage() == FieldType.Storage.ARRAY && !f.encoded()) {
      outerLengthCheck(c, f, "indices[next - 1]", held);
    }
    return c.build();
  }

  /**
   * Checks the outermost length of array member {@code f}'s value {@code v}: a flat array holds
   * the whole shape row-major, a nested one has the first axis outermost (its inner rows are
   * checked as they are copied).
   */
  private static void outerLengthCheck(CodeBlock.Builder c, FieldDescriptor f, String index, String v) {
    long length = f.arrayRank() == 1 ? f.elementCount() : f.shape().get(0);
    mismatchIf(c, f, index, v, "$L.length != $L", v, length);
  }

  /** The Java type a member's value is held in between its read and its copy. */
  private static TypeName heldType(FieldDescriptor f) {
    return f.storage() == FieldType.Storage.SCALAR
        ? ProviderWriter.primitive(ProviderWriter.bufferElement(f.dtype()))
        : valueType(f);
  }

  /**
   * Reads member {@code f} of {@code sample} (row {@code next}) into {@code read<position>} and
   * checks it is not null. An array is not touched until the next iteration's {@link #check}, so
   * the miss on the sample and the miss on its array each have an iteration to resolve.
   */
  private static CodeBlock read(FieldDescriptor f, int position) {
    String held = "read" + position;
    CodeBlock.Builder c = CodeBlock.builder();
    switch (f.storage()) {
      case SCALAR -> c.addStatement("$L = $L", held, convert("sample." + f.read(), f.primitive(), f.dtype()));
      case INDARRAY -> {
        c.addStatement("$L = sample.$L", held, f.read());
        nullCheck(c, f, held, "indices[next]");
      }
      case ARRAY -> {
        c.addStatement("$L = sample.$L", held, f.read());
        nullCheck(c, f, held, "indices[next]");
      }
    }
    return c.build();
  }

  /**
   * Copies {@code v<position>}, member {@code f} of row {@code row}'s sample (read and checked
   * before: two iterations earlier in the read-ahead loop, just before in {@link #field}).
   */
  private static CodeBlock copy(FieldDescriptor f, int position) {
    String v = "v" + position;
    String out = "out" + position;
    CodeBlock.Builder c = CodeBlock.builder();
    c.add("// $L: $L $L\n", f.name(), f.dtype(), BatchWriter.batchShape(f));
    if (f.encoded()) {
      // One decode step, the image providers' own: the draws of (seed, epoch, sample), whatever
      // thread writes the row; a bad image names the member and the sample.
      c.beginControlFlow("if (decoders[$L] != null)", position);
      c.beginControlFlow("try");
      c.addStatement("decoders[$L].write($L, 0, $L.length, target.seed(), target.epoch(), $T.sampleIndex(indices[row]), $L,"
          + " row)", position, v, v, RuntimeNames.COLLATE, out);
      c.nextControlFlow("catch ($T e)", RuntimeNames.IMAGE_DECODER.nestedClass("BadImageException"));
      c.addStatement("throw $T.badImage($S, indices[row], e)", RuntimeNames.COLLATE, f.name());
      c.endControlFlow();
      c.endControlFlow();
      return c.build();
    }
    switch (f.storage()) {
      case SCALAR -> c.addStatement("$L.put(row, $L)", out, v);
      case INDARRAY -> c.addStatement("$T.indarray($S, indices[row], $L, $L, $L, row)", RuntimeNames.COLLATE, f.name(),
          ProviderWriter.shapeConstant(f), v, out);
      case ARRAY -> {
        if (f.arrayRank() == 1) {
          long count = f.elementCount();
          copyRow(c, f, out, v, "0", "row * " + count, String.valueOf(count));
        } else {
          nested(c, f, position, v, out);
        }
      }
    }
    return c.build();
  }

  /**
   * Per row, before any member is copied: reads every variable member, measures its variable axis,
   * applies its group's bound ({@code len} steps kept, {@code skip} dropped at the start), checks
   * that members sharing a length have it, and writes the row's length and mask.
   */
  private static CodeBlock sequencePreamble(SampleDescriptor d) {
    CodeBlock.Builder c = CodeBlock.builder();
    List<FieldDescriptor> fields = d.fields();
    for (int i = 0; i < fields.size(); i++) {
      FieldDescriptor f = fields.get(i);
      if (f.variable()) {
        String v = "v" + i;
        c.addStatement("$T $L = sample.$L", valueType(f), v, f.read());
        nullCheck(c, f, v);
        c.addStatement("int n$L = $L", i, rawLength(c, f, v, "indices[row]"));
      }
    }
    for (int g = 0; g < d.groups().size(); g++) {
      List<FieldDescriptor> group = d.group(g);
      FieldDescriptor root = group.get(0);
      int r = fields.indexOf(root);
      c.addStatement("int len$L = n$L", g, r);
      c.addStatement("int skip$L = 0", g);
      if (root.maxLength() > 0) {
        c.beginControlFlow("if (n$L > $L)", r, root.maxLength());
        switch (root.tooLong()) {
          case ERROR -> c.addStatement("throw $T.tooLong($S, indices[row], n$L, $L)", RuntimeNames.COLLATE, root.name(), r,
              root.maxLength());
          case TRUNCATE_START -> c.addStatement("len$L = $L", g, root.maxLength())
              .addStatement("skip$L = n$L - $L", g, r, root.maxLength());
          case TRUNCATE_END -> c.addStatement("len$L = $L", g, root.maxLength());
        }
        c.endControlFlow();
      }
      for (FieldDescriptor follower : group.subList(1, group.size())) {
        int fi = fields.indexOf(follower);
        c.beginControlFlow("if (n$L != n$L)", fi, r);
        c.addStatement("throw $T.lengthMismatch($S, indices[row], n$L, $S, n$L)", RuntimeNames.COLLATE, follower.name(), fi,
            root.name(), r);
        c.endControlFlow();
      }
      c.addStatement("lengths$L.put(row, len$L)", g, g);
      c.addStatement("$T.maskRow(mask$L, row * steps$L, len$L, steps$L)", RuntimeNames.COLLATE, g, g, g, g);
    }
    return c.build();
  }

  /** The Java type of a member's value. */
  static TypeName valueType(FieldDescriptor f) {
    return f.storage() == FieldType.Storage.INDARRAY ? RuntimeNames.INDARRAY
        : ProviderWriter.arrayOf(f.primitive(), f.arrayRank());
  }

  /**
   * Emits the checks that reach the variable axis of {@code v} (the fixed axes before it) and
   * returns the expression of its length there.
   */
  static String rawLength(CodeBlock.Builder c, FieldDescriptor f, String v, String index) {
    String shape = ProviderWriter.shapeConstant(f);
    if (f.storage() == FieldType.Storage.INDARRAY) {
      return CodeBlock.of("$T.lengthOf($S, $L, $L, $L)", RuntimeNames.COLLATE, f.name(), index, shape, v).toString();
    }
    int axis = f.variableAxis();
    String cur = v;
    for (int a = 0; a < axis; a++) {
      mismatchIf(c, f, index, v, "$L.length != $L || $L[0] == null", cur, f.shape().get(a), cur);
      cur = cur + "[0]";
    }
    return cur + ".length";
  }

  /**
   * A member with a variable axis: its row holds {@code steps} along that axis, the sample's kept
   * steps first (from {@code skip} on), then {@code stepPadding}.
   */
  private static CodeBlock variableField(FieldDescriptor f, int position) {
    CodeBlock.Builder c = CodeBlock.builder();
    int g = f.group();
    String v = "v" + position;
    String out = "out" + position;
    c.add("// $L: $L $L, padded to steps$L\n", f.name(), f.dtype(), BatchWriter.batchShape(f), g);
    if (f.storage() == FieldType.Storage.INDARRAY) {
      c.addStatement("$T.sequence($L, target.row($L, row), $L, len$L, skip$L, $L)", RuntimeNames.COLLATE, v, position,
          f.variableAxis(), g, g, literal(f.stepPadding()));
      return c.build();
    }
    // The row's length: the fixed dims times the batch's steps.
    String at = "at" + position;
    c.addStatement("int $L = row * $L * steps$L", at, f.elementCount(), g);
    emitAxis(c, f, position, 0, v, v, out, at);
    return c.build();
  }

  /** The loops of axis {@code axis} of {@code src} (an array of rank {@code rank - axis}), writing from {@code at}. */
  private static void emitAxis(CodeBlock.Builder c, FieldDescriptor f, int position, int axis, String root, String src,
      String out, String at) {
    List<Integer> dims = f.shape();
    int rank = dims.size();
    int g = f.group();
    boolean variable = axis == f.variableAxis();
    if (axis == rank - 1) {
      if (variable) {
        copyRow(c, f, out, src, "skip" + g, at, "len" + g);
        fill(c, f, out, at + " + len" + g, "steps" + g + " - len" + g);
        c.addStatement("$L += steps$L", at, g);
      } else {
        mismatchIf(c, f, "indices[row]", root, "$L.length != $L", src, dims.get(axis));
        copyRow(c, f, out, src, "0", at, String.valueOf(dims.get(axis)));
        c.addStatement("$L += $L", at, dims.get(axis));
      }
      return;
    }
    String i = "i" + position + "_" + axis;
    String child = root + "_" + (axis + 1);
    TypeName childType = ProviderWriter.arrayOf(f.primitive(), rank - axis - 1);
    String expected = axis + 1 == f.variableAxis() ? "n" + position : String.valueOf(dims.get(axis + 1));
    if (variable) {
      c.beginControlFlow("for (int $L = 0; $L < len$L; $L++)", i, i, g, i);
      c.addStatement("$T $L = $L[skip$L + $L]", childType, child, src, g, i);
    } else {
      if (axis > 0 || f.variableAxis() == 0) {
        // Axis 0 of a member whose variable axis is deeper was checked when its length was read.
        mismatchIf(c, f, "indices[row]", root, "$L.length != $L", src, dims.get(axis));
      }
      c.beginControlFlow("for (int $L = 0; $L < $L; $L++)", i, i, dims.get(axis), i);
      c.addStatement("$T $L = $L[$L]", childType, child, src, i);
    }
    mismatchIf(c, f, "indices[row]", root, "$L == null || $L.length != $L", child, child, expected);
    emitAxis(c, f, position, axis + 1, root, child, out, at);
    c.endControlFlow();
    if (variable) {
      long inner = 1;
      for (int b = axis + 1; b < rank; b++) {
        inner *= dims.get(b);
      }
      fill(c, f, out, at, "(steps" + g + " - len" + g + ") * " + inner);
      c.addStatement("$L += (steps$L - len$L) * $L", at, g, g, inner);
    }
  }

  /**
   * The one shape check of the generated collate: when {@code condition} (a JavaPoet format over
   * {@code args}) holds, throw {@code Collate.mismatch}, which names the member, the sample at
   * {@code index} and the declared against the actual shape of {@code value}.
   */
  private static void mismatchIf(CodeBlock.Builder c, FieldDescriptor f, String index, String value, String condition,
      Object... args) {
    c.beginControlFlow("if (" + condition + ")", args);
    c.addStatement("throw $T.mismatch($S, $L, $L, $L)", RuntimeNames.COLLATE, f.name(), index,
        ProviderWriter.shapeConstant(f), value);
    c.endControlFlow();
  }

  /** Writes {@code count} padding values to {@code out} from {@code at}: bulk copies of the member's padding row. */
  private static void fill(CodeBlock.Builder c, FieldDescriptor f, String out, String at, String count) {
    c.addStatement("$T.fill($L, $L, $L, $L)", RuntimeNames.COLLATE, out, at, count, padRowConstant(f));
  }

  /** The provider's constant holding {@code f}'s padding row. */
  static String padRowConstant(FieldDescriptor f) {
    return f.constant() + "_PAD";
  }

  /**
   * The initializer of {@link #padRowConstant}: the runtime's one step-padding rule, {@code
   * Collate.padRow(dtype, stepPadding)}, which shard sets pad by too, as the buffer's array type.
   */
  static CodeBlock padRowInitializer(FieldDescriptor f) {
    double p = f.stepPadding();
    String value = Double.isNaN(p) ? "Double.NaN" : Double.isInfinite(p)
        ? (p > 0 ? "Double.POSITIVE_INFINITY" : "Double.NEGATIVE_INFINITY") : literal(p);
    return CodeBlock.of("($T) $T.padRow($T.$L, $L)", ProviderWriter.arrayOf(ProviderWriter.bufferElement(f.dtype()), 1),
        RuntimeNames.COLLATE, RuntimeNames.DTYPE, f.dtype().name(), value);
  }

  private static String literal(double d) {
    return d + "d";
  }

  /**
   * A fixed-shape member of a sample with variable-length members (the plain row loop): read,
   * checked and copied in one go, as {@link #copy} copies it in the read-ahead loop.
   */
  private static CodeBlock field(FieldDescriptor f, int position) {
    String v = "v" + position;
    CodeBlock.Builder c = CodeBlock.builder();
    if (f.storage() == FieldType.Storage.SCALAR) {
      c.addStatement("$T $L = $L", heldType(f), v, convert("sample." + f.read(), f.primitive(), f.dtype()));
    } else {
      c.addStatement("$T $L = sample.$L", valueType(f), v, f.read());
      nullCheck(c, f, v);
      if (f.storage() == FieldType.Storage.ARRAY && !f.encoded()) {
        outerLengthCheck(c, f, "indices[row]", v);
      }
    }
    return c.add(copy(f, position)).build();
  }

  /**
   * Nested loops over the outer axes, a bulk copy of the innermost axis; the outermost length was
   * checked before ({@link #outerLengthCheck}).
   */
  private static void nested(CodeBlock.Builder c, FieldDescriptor f, int position, String root, String out) {
    List<Integer> dims = f.shape();
    int rank = dims.size();
    String at = "at" + position;
    c.addStatement("int $L = row * $L", at, f.elementCount());
    String parent = root;
    for (int axis = 0; axis < rank - 1; axis++) {
      String i = "i" + position + "_" + axis;
      String child = root + "_" + (axis + 1);
      c.beginControlFlow("for (int $L = 0; $L < $L; $L++)", i, i, dims.get(axis), i);
      c.addStatement("$T $L = $L[$L]", ProviderWriter.arrayOf(f.primitive(), rank - axis - 1), child, parent, i);
      mismatchIf(c, f, "indices[row]", root, "$L == null || $L.length != $L", child, child, dims.get(axis + 1));
      parent = child;
    }
    copyRow(c, f, out, parent, "0", at, String.valueOf(dims.get(rank - 1)));
    c.addStatement("$L += $L", at, dims.get(rank - 1));
    for (int axis = 0; axis < rank - 1; axis++) {
      c.endControlFlow();
    }
  }

  /** Copies {@code length} elements of {@code src} from {@code srcFrom} to {@code out} at {@code at}. */
  private static void copyRow(CodeBlock.Builder c, FieldDescriptor f, String out, String src, String srcFrom, String at,
      String length) {
    if (ProviderWriter.bufferElement(f.dtype()).equals(f.primitive())) {
      c.addStatement("$L.put($L, $L, $L, $L)", out, at, src, srcFrom, length);
    } else {
      String from = srcFrom.equals("0") ? "" : srcFrom + " + ";
      c.beginControlFlow("for (int j = 0; j < $L; j++)", length);
      c.addStatement("$L.put($L + j, $L)", out, at, convert(src + "[" + from + "j]", f.primitive(), f.dtype()));
      c.endControlFlow();
    }
  }

  private static void nullCheck(CodeBlock.Builder c, FieldDescriptor f, String v) {
    nullCheck(c, f, v, "indices[row]");
  }

  private static void nullCheck(CodeBlock.Builder c, FieldDescriptor f, String v, String index) {
    c.beginControlFlow("if ($L == null)", v);
    c.addStatement("throw $T.nullMember($S, $L)", RuntimeNames.COLLATE, f.name(), index);
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
