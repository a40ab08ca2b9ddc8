package dev.minibatch.processor.internal;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import com.palantir.javapoet.WildcardTypeName;
import java.util.List;
import javax.lang.model.element.Modifier;

/**
 * Writes {@code <Sample>SparkRows} from a {@link SparkRowsPlan}: the Spark schema of the record
 * (one column per component; a primitive array as one flat row-major array column, {@code byte}
 * arrays as {@code binary}; the declared shape in the field metadata), {@code fromRow} with typed
 * reads and the canonical constructor, {@code toRow}, and the generated provider over a list. An
 * encoded-image member is a {@code binary} column of any length (the encoded bytes; the encoding
 * in the metadata too), and with {@code minibatch-shards} on the class path the class writes shard
 * segments through {@code <Sample>Shards}, storing those bytes as they are.
 */
final class SparkRowsWriter {
  private SparkRowsWriter() {}

  static final String SPARK = "dev.minibatch.spark";
  static final ClassName SPARK_ROWS = ClassName.get(SPARK, "SparkRows");
  static final ClassName PROVIDER_SETTINGS = ClassName.get(SPARK, "ProviderSettings");
  static final ClassName ROW_VALUES = ClassName.get(SPARK + ".internal", "RowValues");
  static final ClassName ENCODED_SEGMENTS = ClassName.get(SPARK + ".internal", "EncodedSegments");
  static final ClassName ROW = ClassName.get("org.apache.spark.sql", "Row");
  static final ClassName ROW_FACTORY = ClassName.get("org.apache.spark.sql", "RowFactory");
  static final ClassName DATA_TYPES = ClassName.get("org.apache.spark.sql.types", "DataTypes");
  static final ClassName STRUCT_TYPE = ClassName.get("org.apache.spark.sql.types", "StructType");
  static final ClassName STRUCT_FIELD = ClassName.get("org.apache.spark.sql.types", "StructField");

  /** {@code Digit} → {@code DigitSparkRows}, beside {@code DigitProvider}. */
  static ClassName name(SampleDescriptor d) {
    String p = d.provider().simpleName();
    return d.provider().peerClass(p.substring(0, p.length() - "Provider".length()) + "SparkRows");
  }

  /**
   * The class for {@code d}; {@code shards}: {@code <Sample>Shards} is written too, so an encoded
   * sample's class implements {@code EncodedSegments} through it.
   */
  static TypeSpec.Builder write(SampleDescriptor d, SparkRowsPlan plan, boolean shards) {
    ClassName self = name(d);
    List<FieldDescriptor> cols = plan.columns();
    TypeSpec.Builder t = TypeSpec.classBuilder(self)
        .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
        .addSuperinterface(ParameterizedTypeName.get(SPARK_ROWS, d.sample(), d.provider()))
        .addJavadoc("The Spark schema of {@link $T} and its row ↔ record mapping: $L.\n", d.sample(), describe(cols))
        .addJavadoc("Use {@link #INSTANCE}; stateless and serializable, so executors receive it with their tasks.\n");
    t.addField(FieldSpec.builder(long.class, "serialVersionUID", Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .initializer("1L").build());
    t.addField(FieldSpec.builder(self, "INSTANCE", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
        .addJavadoc("The mapping.\n").initializer("new $T()", self).build());
    CodeBlock.Builder fields = CodeBlock.builder();
    for (int i = 0; i < cols.size(); i++) {
      FieldDescriptor f = cols.get(i);
      CodeBlock meta = f.encoded()
          ? CodeBlock.of("$T.encodedMeta($L, $S, $L)", ROW_VALUES, f.label(), f.encoding().name(), longDims(f))
          : CodeBlock.of("$T.meta($L$L)", ROW_VALUES, f.label(), f.shape().isEmpty() ? "" : ", " + longDims(f));
      fields.add("$T.createStructField($S, $L, false, $L)$L\n", DATA_TYPES, f.property(), sparkType(f), meta,
          i + 1 < cols.size() ? "," : "");
    }
    t.addField(FieldSpec.builder(STRUCT_TYPE, "SCHEMA", Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .initializer("$T.createStructType(new $T[] {\n$>$L$<})", DATA_TYPES, STRUCT_FIELD, fields.build())
        .build());
    t.addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());

    t.addMethod(override("schema", STRUCT_TYPE).addStatement("return SCHEMA").build());
    t.addMethod(override("sampleType", ParameterizedTypeName.get(ClassName.get(Class.class), d.sample()))
        .addStatement("return $T.class", d.sample()).build());
    t.addMethod(override("check", TypeName.VOID).addParameter(STRUCT_TYPE, "found")
        .addStatement("$T.check(SCHEMA, found, $S)", ROW_VALUES, d.sample().simpleName()).build());
    t.addMethod(override("defaultBatchSize", TypeName.INT)
        .addStatement("return $T.DEFAULT_BATCH_SIZE", d.provider()).build());
    t.addMethod(override("provider", d.provider())
        .addParameter(ParameterizedTypeName.get(ClassName.get(List.class), WildcardTypeName.subtypeOf(d.sample())), "samples")
        .addParameter(PROVIDER_SETTINGS, "settings")
        .addStatement("return $T.create(b -> settings.accept(b.samples(samples)))", d.provider())
        .build());
    t.addMethod(fromRow(d, cols));
    t.addMethod(toRow(d, cols));
    if (shards && CollateWriter.encoded(d)) {
      t.addSuperinterface(ParameterizedTypeName.get(ENCODED_SEGMENTS, d.sample()));
      t.addMethod(override("writeEncoded", TypeName.VOID)
          .addParameter(ShardsWriter.SHARD_WRITER.nestedClass("Segment"), "segment")
          .addParameter(ParameterizedTypeName.get(ClassName.get(List.class), d.sample()), "samples")
          .addParameter(long.class, "base")
          .addStatement("$T.$L(segment, samples, base)", ShardsWriter.name(d), ShardsWriter.WRITE_LIST)
          .build());
    }
    return t;
  }

  private static MethodSpec fromRow(SampleDescriptor d, List<FieldDescriptor> cols) {
    MethodSpec.Builder m = override("fromRow", d.sample())
        .addParameter(ROW, "row")
        .addParameter(long.class, "index");
    StringBuilder args = new StringBuilder();
    for (int i = 0; i < cols.size(); i++) {
      FieldDescriptor f = cols.get(i);
      String v = "v" + i;
      CodeBlock at = CodeBlock.of("$T.at(row, $S, $L, index)", ROW_VALUES, f.property(), i);
      if (f.storage() == FieldType.Storage.SCALAR) {
        m.addStatement("$T $L = $T.$L(row, $L, $S, index)", ProviderWriter.primitive(f.primitive()), v, ROW_VALUES,
            scalarReader(f.primitive()), at, f.property());
      } else {
        // A variable axis (rank 1 only, see SparkRowsPlan) and an encoded image's bytes take an array of any length.
        long n = f.variable() || f.encoded() ? -1 : f.elementCount();
        String flat = f.arrayRank() == 1 ? v : v + "flat";
        m.addStatement("$T $L = $T.$L(row, $L, $S, $L, index)", ProviderWriter.arrayOf(f.primitive(), 1), flat,
            ROW_VALUES, arrayReader(f.primitive()), at, f.property(), n);
        if (f.arrayRank() > 1) {
          m.addStatement("$T $L = new $L", ProviderWriter.arrayOf(f.primitive(), f.arrayRank()), v,
              newArray(f));
          nest(m, f, (offset, inner) -> CodeBlock.builder().addStatement("$T.arraycopy($L, $L, $L, 0, $L)", System.class,
              flat, offset, inner, f.shape().get(f.shape().size() - 1)).build(), v, "");
        }
      }
      args.append(i == 0 ? "" : ", ").append(v);
    }
    return m.addStatement("return new $T($L)", d.sample(), args).build();
  }

  private static MethodSpec toRow(SampleDescriptor d, List<FieldDescriptor> cols) {
    MethodSpec.Builder m = override("toRow", ROW).addParameter(d.sample(), "sample");
    StringBuilder args = new StringBuilder();
    for (int i = 0; i < cols.size(); i++) {
      FieldDescriptor f = cols.get(i);
      String v = "v" + i;
      if (f.storage() == FieldType.Storage.SCALAR) {
        m.addStatement("$T $L = sample.$L", ProviderWriter.primitive(f.primitive()), v, f.read());
        args.append(i == 0 ? "" : ", ").append(v);
        continue;
      }
      long n = f.elementCount();
      String where = d.sample().simpleName() + "." + f.property();
      m.addStatement("$T $L = $T.requireNonNull(sample.$L, $S)", ProviderWriter.arrayOf(f.primitive(), f.arrayRank()),
          v, java.util.Objects.class, f.read(), where + " is null");
      String flat = v;
      if (f.arrayRank() == 1) {
        if (f.variable() || f.encoded()) {
          // Any length: the provider checks it against maxLength, or decodes the image.
          args.append(i == 0 ? "" : ", ").append(flat);
          continue;
        }
        m.beginControlFlow("if ($L.length != $L)", v, n)
            .addStatement("throw new $T($S + $L.length + $S)", IllegalArgumentException.class, where + " has ", v,
                " elements, expected " + n)
            .endControlFlow();
      } else {
        flat = v + "flat";
        m.addStatement("$T $L = new $L[$L]", ProviderWriter.arrayOf(f.primitive(), 1), flat, f.primitive(), n);
        int last = f.shape().get(f.shape().size() - 1);
        String finalFlat = flat;
        nest(m, f, (offset, inner) -> CodeBlock.builder()
            .beginControlFlow("if ($L.length != $L)", inner, last)
            .addStatement("throw new $T($S + $L.length + $S)", IllegalArgumentException.class,
                where + ": an innermost array has ", inner, " elements, expected " + last + " (shape " + f.shape() + ")")
            .endControlFlow()
            .addStatement("$T.arraycopy($L, 0, $L, $L, $L)", System.class, inner, finalFlat, offset, last)
            .build(), v, where);
      }
      args.append(i == 0 ? "" : ", ").append(flat);
    }
    return m.addStatement("return $T.create($L)", ROW_FACTORY, args).build();
  }

  /** Body of the innermost loop, given the flat offset expression and the innermost array expression. */
  private interface Innermost {
    CodeBlock body(String offset, String inner);
  }

  /**
   * Nested loops over all but the last dimension of {@code f}'s shape for the array {@code v}; the
   * innermost body gets the row-major offset of the innermost array and that array's expression.
   * With {@code where}, outer levels are checked for their length, so a ragged array fails with
   * the member's name.
   */
  private static void nest(MethodSpec.Builder m, FieldDescriptor f, Innermost body, String v, String where) {
    List<Integer> shape = f.shape();
    int outer = shape.size() - 1;
    StringBuilder access = new StringBuilder(v);
    StringBuilder offset = new StringBuilder();
    for (int k = 0; k < outer; k++) {
      String i = v + "i" + k;
      if (!where.isEmpty()) {
        String a = access.toString();
        m.beginControlFlow("if ($L.length != $L)", a, shape.get(k))
            .addStatement("throw new $T($S + $L.length + $S)", IllegalArgumentException.class,
                where + ": an array of dimension " + k + " has ", a, " elements, expected " + shape.get(k)
                    + " (shape " + shape + ")")
            .endControlFlow();
      }
      m.beginControlFlow("for (int $L = 0; $L < $L; $L++)", i, i, shape.get(k), i);
      offset = k == 0 ? new StringBuilder(i) : new StringBuilder("(" + offset + ") * " + shape.get(k) + " + " + i);
      access.append('[').append(i).append(']');
    }
    String off = "(" + offset + ") * " + shape.get(outer);
    m.addCode(body.body(off, access.toString()));
    for (int k = 0; k < outer; k++) {
      m.endControlFlow();
    }
  }

  private static String newArray(FieldDescriptor f) {
    StringBuilder sb = new StringBuilder(f.primitive());
    for (int dim : f.shape()) {
      sb.append('[').append(dim).append(']');
    }
    return sb.toString();
  }

  private static CodeBlock sparkType(FieldDescriptor f) {
    if (f.storage() == FieldType.Storage.ARRAY && f.primitive().equals("byte")) {
      return CodeBlock.of("$T.BinaryType", DATA_TYPES);
    }
    CodeBlock element = CodeBlock.of("$T.$L", DATA_TYPES, switch (f.primitive()) {
      case "boolean" -> "BooleanType";
      case "byte" -> "ByteType";
      case "short" -> "ShortType";
      case "int" -> "IntegerType";
      case "long" -> "LongType";
      case "float" -> "FloatType";
      case "double" -> "DoubleType";
      default -> throw new IllegalArgumentException(f.primitive());
    });
    return f.storage() == FieldType.Storage.SCALAR ? element
        : CodeBlock.of("$T.createArrayType($L, false)", DATA_TYPES, element);
  }

  private static String scalarReader(String primitive) {
    return switch (primitive) {
      case "boolean" -> "bool";
      case "byte" -> "int8";
      case "short" -> "int16";
      case "int" -> "int32";
      case "long" -> "int64";
      case "float" -> "float32";
      case "double" -> "float64";
      default -> throw new IllegalArgumentException(primitive);
    };
  }

  private static String arrayReader(String primitive) {
    return primitive.equals("byte") ? "bytes" : primitive + "s";
  }

  private static String longDims(FieldDescriptor f) {
    StringBuilder sb = new StringBuilder();
    for (int dim : f.shape()) {
      sb.append(sb.length() == 0 ? "" : ", ").append(dim).append('L');
    }
    return sb.toString();
  }

  private static String describe(List<FieldDescriptor> cols) {
    StringBuilder sb = new StringBuilder();
    for (FieldDescriptor f : cols) {
      sb.append(sb.length() == 0 ? "" : ", ").append("{@code ").append(f.property()).append("} {@code ")
          .append(f.storage() == FieldType.Storage.SCALAR ? f.primitive()
              : f.primitive().equals("byte") ? "binary" : "array<" + f.primitive() + ">")
          .append('}').append(f.encoded() ? " (an encoded " + f.encoding().name() + " image, decoded to " + f.shape() + ")"
              : f.shape().isEmpty() ? "" : " " + f.shape());
    }
    return sb.toString();
  }

  private static MethodSpec.Builder override(String name, TypeName returns) {
    return MethodSpec.methodBuilder(name).addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(returns);
  }
}
