package dev.minibatch.processor.internal;

import com.palantir.javapoet.ArrayTypeName;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import com.palantir.javapoet.WildcardTypeName;
import dev.minibatch.DType;
import java.util.List;
import java.util.function.Consumer;
import javax.lang.model.element.Modifier;

/**
 * Writes {@code <Sample>Provider}: the metadata as constants, the typed collate method, the
 * iteration (delegated to the runtime's shared engine, so every policy matches {@code
 * ArrayDataProvider}) and the builder.
 */
final class ProviderWriter {
  private ProviderWriter() {}

  static TypeSpec.Builder write(SampleDescriptor d) {
    return write(d, false, java.util.Optional.empty());
  }

  /**
   * With {@code shards}, the builder also reads shard sets ({@link ShardsWriter#builderSource}); with
   * {@code packed}, a member to pack, it also packs ({@link PackedWriter#builderMethods}).
   */
  static TypeSpec.Builder write(SampleDescriptor d, boolean shards, java.util.Optional<FieldDescriptor> packed) {
    ClassName builder = d.provider().nestedClass("Builder");
    TypeName batcher = ParameterizedTypeName.get(RuntimeNames.SAMPLE_BATCHER, d.sample(), d.batch());
    TypeName samplesList = ParameterizedTypeName.get(ClassName.get(List.class), WildcardTypeName.subtypeOf(d.sample()));
    TypeName samplesIterable = ParameterizedTypeName.get(ClassName.get(Iterable.class), WildcardTypeName.subtypeOf(d.sample()));

    TypeSpec.Builder t = TypeSpec.classBuilder(d.provider())
        .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
        .addSuperinterface(ParameterizedTypeName.get(RuntimeNames.BATCH_PROVIDER, d.batch()))
        .addSuperinterface(RuntimeNames.RESUMABLE)
        .addJavadoc("Mini-batches of {@link $T} samples as {@link $T}s.\n\n", d.sample(), d.batch())
        .addJavadoc("<p>Provides $L.\n", describeFields(d))
        .addJavadoc("\n<pre>{@code\n"
            + "try ($T p = $T.builder().samples(list).batchSize(32).shuffle(true).seed(1).build()) {\n"
            + "  for ($T batch : p) { ... }\n"
            + "}\n}</pre>\n", d.provider(), d.provider(), d.batch());

    t.addField(FieldSpec.builder(int.class, "DEFAULT_BATCH_SIZE", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
        .addJavadoc("The batch size declared by {@code @DataProvider}; 0: none declared, so {@code build()} fails\n"
            + "unless the builder sets one.\n")
        .initializer("$L", d.batchSize())
        .build());
    MemoryEstimate memory = MemoryEstimate.of(d);
    t.addField(FieldSpec.builder(long.class, "BYTES_PER_SAMPLE", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
        .addJavadoc("The batch memory of one sample, estimated at compile time: $L\n", memory.javadoc())
        .initializer("$LL", memory.bytesPerSample())
        .build());
    t.addField(FieldSpec.builder(long.class, "BYTES_PER_BATCH", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
        .addJavadoc("{@link #BYTES_PER_SAMPLE} times {@link #DEFAULT_BATCH_SIZE}: one batch's memory at the default size (0\n"
            + "when no batch size is declared).\n")
        .initializer("$LL", memory.bytesPerBatch())
        .build());
    if (d.variable()) {
      t.addField(FieldSpec.builder(long.class, "BYTES_PER_SAMPLE_STEP", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
          .addJavadoc("The bytes one more step of every variable axis adds to one sample (masks included); for an\n"
              + "unbounded axis, add this times the longest sample's length to {@link #BYTES_PER_SAMPLE}.\n")
          .initializer("$LL", memory.bytesPerSampleStep())
          .build());
    }
    t.addJavadoc("\n<p>Memory: $L\n", memory.javadoc());
    for (FieldDescriptor f : d.fields()) {
      t.addField(FieldSpec.builder(RuntimeNames.SHAPE, shapeConstant(f), Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
          .initializer(f.shape().isEmpty() ? CodeBlock.of("$T.scalar()", RuntimeNames.SHAPE)
              : CodeBlock.of("$T.of($L)", RuntimeNames.SHAPE, joinDims(f)))
          .build());
    }
    if (d.variable()) {
      SequenceWriter.write(d, t);
    }
    t.addField(batcher, "batcher", Modifier.PRIVATE, Modifier.FINAL);
    t.addMethod(MethodSpec.constructorBuilder()
        .addModifiers(Modifier.PRIVATE)
        .addParameter(batcher, "batcher")
        .addStatement("this.batcher = batcher")
        .build());

    t.addMethod(MethodSpec.methodBuilder("builder")
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
        .returns(builder)
        .addJavadoc("A builder with the declared defaults.\n")
        .addStatement("return new $T()", builder)
        .build());
    t.addMethod(MethodSpec.methodBuilder("create")
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
        .returns(d.provider())
        .addParameter(ParameterizedTypeName.get(ClassName.get(Consumer.class), builder), "spec")
        .addJavadoc("A provider configured by {@code spec}; from Kotlin: {@code $L.create { it.samples(list) }}.\n",
            d.provider().simpleName())
        .addStatement("$T b = builder()", builder)
        .addStatement("spec.accept(b)")
        .addStatement("return b.build()")
        .build());
    t.addMethod(layoutMethod(d));

    t.addMethod(override("batchSize", TypeName.INT).addStatement("return batcher.batchSize()").build());
    TypeName descs = ParameterizedTypeName.get(ClassName.get(List.class), RuntimeNames.DATA_DESC);
    t.addMethod(override("provideData", descs).addStatement("return batcher.layout().data()").build());
    t.addMethod(override("provideLabel", descs).addStatement("return batcher.layout().label()").build());
    t.addMethod(MethodSpec.methodBuilder("layout")
        .addModifiers(Modifier.PUBLIC)
        .returns(RuntimeNames.BATCH_LAYOUT)
        .addJavadoc("The names, shapes and dtypes of the batch arrays.\n")
        .addStatement("return batcher.layout()")
        .build());
    t.addMethod(MethodSpec.methodBuilder("numSamples")
        .addModifiers(Modifier.PUBLIC)
        .returns(int.class)
        .addJavadoc("The number of samples of a List source; -1 for a streaming source.\n")
        .addStatement("return batcher.numSamples()")
        .build());
    t.addMethod(MethodSpec.methodBuilder("seed")
        .addModifiers(Modifier.PUBLIC)
        .returns(long.class)
        .addJavadoc("The shuffle seed in use.\n")
        .addStatement("return batcher.seed()")
        .build());
    t.addMethod(override("iterator", ParameterizedTypeName.get(RuntimeNames.BATCH_ITERATOR, d.batch()))
        .addStatement("return batcher.iterator()").build());
    t.addMethod(override("saveState", RuntimeNames.ITERATION_STATE).addStatement("return batcher.saveState()").build());
    t.addMethod(override("restoreState", TypeName.VOID)
        .addParameter(RuntimeNames.ITERATION_STATE, "state")
        .addStatement("batcher.restoreState(state)").build());
    t.addMethod(MethodSpec.methodBuilder("reset")
        .addModifiers(Modifier.PUBLIC)
        .addJavadoc("Forgets samples carried over by {@code ROLL_OVER} and ends the iteration in progress.\n")
        .addStatement("batcher.reset()")
        .build());
    t.addMethod(override("close", TypeName.VOID).addStatement("batcher.close()").build());
    t.addMethod(CollateWriter.collateMethod(d));
    if (CollateWriter.encoded(d)) {
      t.addMethod(fieldsMethod(d));
    }
    t.addType(builderType(d, builder, samplesList, samplesIterable, shards, packed));
    return t;
  }

  /**
   * The builder's image settings, for a sample with encoded-image members: the names and meaning of
   * {@code ShardProvider.Builder}'s, kept in the runtime's {@code ImageDecoders}.
   */
  private static void imageSettings(SampleDescriptor d, ClassName builder, TypeSpec.Builder b) {
    List<String> images = d.fields().stream().filter(FieldDescriptor::encoded).map(FieldDescriptor::name).toList();
    String which = images.size() == 1 ? "{@code \"" + images.get(0) + "\"}" : "one of " + images;
    b.addField(FieldSpec.builder(RuntimeNames.IMAGE_DECODERS, "images", Modifier.PRIVATE)
        .initializer("new $T()", RuntimeNames.IMAGE_DECODERS).build());
    b.addField(FieldSpec.builder(boolean.class, "undecoded", Modifier.PRIVATE).build());
    b.addMethod(MethodSpec.methodBuilder("undecoded")
        .returns(builder)
        .addJavadoc("Leaves the encoded images undecoded (their arrays unwritten): for the shard writer, which\n"
            + "stores each image's bytes as they are.\n")
        .addStatement("this.undecoded = true")
        .addStatement("return this")
        .build());
    b.addMethod(MethodSpec.methodBuilder("augment")
        .addModifiers(Modifier.PUBLIC)
        .returns(builder)
        .addParameter(String.class, "member")
        .addParameter(ParameterizedTypeName.get(ClassName.get(Consumer.class), RuntimeNames.IMAGE_OPTIONS_AUGMENT), "options")
        .addJavadoc("Augments the encoded image {@code member} (its provided name, " + which + ") as\n"
            + "{@code ImageRecordProvider.Builder.augment} does: crops, resizes, flips, colour; the draws are those of\n"
            + "(seed, epoch, sample), the same for any number of reader threads. Calls add up, in order.\n\n"
            + "@throws IllegalArgumentException at {@code build()} if {@code member} is not an encoded image\n")
        .addStatement("images.augment(member, options)")
        .addStatement("return this")
        .build());
    b.addMethod(MethodSpec.methodBuilder("normalize")
        .addModifiers(Modifier.PUBLIC)
        .returns(builder)
        .addParameter(String.class, "member")
        .addParameter(ParameterizedTypeName.get(ClassName.get(Consumer.class), RuntimeNames.IMAGE_OPTIONS_NORMALIZE),
            "options")
        .addJavadoc("Normalises the encoded image {@code member} (" + which + ") as\n"
            + "{@code ImageRecordProvider.Builder.normalize} does: mean, std, scale (a FLOAT32 member). Calls add up.\n\n"
            + "@throws IllegalArgumentException at {@code build()} if {@code member} is not an encoded image\n")
        .addStatement("images.normalize(member, options)")
        .addStatement("return this")
        .build());
    b.addMethod(MethodSpec.methodBuilder("reducedDecode")
        .addModifiers(Modifier.PUBLIC)
        .returns(builder)
        .addParameter(boolean.class, "reduced")
        .addJavadoc("Whether JPEGs much larger than their output decode at 1/2, 1/4 or 1/8 of their size, as\n"
            + "{@code ImageRecordProvider.Builder.reducedDecode}; default true.\n")
        .addStatement("images.reducedDecode(reduced)")
        .addStatement("return this")
        .build());
  }

  /** The sample's fields as the schema describes them, encodings included: what the image decoders decode to. */
  private static MethodSpec fieldsMethod(SampleDescriptor d) {
    CodeBlock.Builder c = CodeBlock.builder();
    for (FieldDescriptor f : d.fields()) {
      if (!c.isEmpty()) {
        c.add(",\n");
      }
      c.add("new $T($T.$L, $T.$L, $L, $T.$L, $S, $L, $T.Encoding.$L)", RuntimeNames.SAMPLE_SCHEMA_FIELD, d.batch(),
          f.constant(), RuntimeNames.ROLE, f.label() ? "LABEL" : "DATA", shapeConstant(f), RuntimeNames.DTYPE,
          f.dtype().name(), f.layout(), f.variable() ? f.maxLength() + "L" : "0L", RuntimeNames.SAMPLE_SCHEMA,
          f.encoding().name());
    }
    return MethodSpec.methodBuilder("fields")
        .addModifiers(Modifier.STATIC)
        .returns(ParameterizedTypeName.get(ClassName.get(List.class), RuntimeNames.SAMPLE_SCHEMA_FIELD))
        .addJavadoc("The sample's fields, data then labels, with their encodings.\n")
        .addStatement("return $T.of(\n$>$L$<)", List.class, c.build())
        .build();
  }

  private static MethodSpec.Builder override(String name, TypeName returns) {
    return MethodSpec.methodBuilder(name).addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(returns);
  }

  private static MethodSpec layoutMethod(SampleDescriptor d) {
    CodeBlock.Builder data = CodeBlock.builder();
    CodeBlock.Builder label = CodeBlock.builder();
    for (FieldDescriptor f : d.fields()) {
      CodeBlock.Builder c = f.label() ? label : data;
      if (!c.isEmpty()) {
        c.add(",\n");
      }
      c.add("$T.of($T.$L, batchSize, $L, $T.$L, $T.$L, $S", RuntimeNames.DATA_DESC, d.batch(), f.constant(),
          shapeConstant(f), RuntimeNames.DTYPE, f.dtype().name(), RuntimeNames.ROLE, f.label() ? "LABEL" : "DATA",
          f.layout());
      c.add(f.variable() ? ", " + f.maxLength() + ")" : ")");
    }
    return MethodSpec.methodBuilder("layout")
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
        .returns(RuntimeNames.BATCH_LAYOUT)
        .addParameter(int.class, "batchSize")
        .addJavadoc("The batch layout for {@code batchSize} rows: the metadata, known at compile time.\n")
        .addStatement("return $T.of(\n$>$T.<$T>of($L),\n$T.<$T>of($L)$<)", RuntimeNames.BATCH_LAYOUT,
            List.class, RuntimeNames.DATA_DESC, data.build(), List.class, RuntimeNames.DATA_DESC, label.build())
        .build();
  }

  private static TypeSpec builderType(SampleDescriptor d, ClassName builder, TypeName list, TypeName iterable,
      boolean shards, java.util.Optional<FieldDescriptor> packed) {
    MethodSpec.Builder constructor = MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE);
    if (d.batchSize() > 0) {
      // Only a declared size is a default: an undeclared one must be set on the builder. A default,
      // not a setting: a shard source's batchSize replaces it rather than conflicting with it.
      constructor.addStatement("super($T.builder().batchSize(DEFAULT_BATCH_SIZE).build())", RuntimeNames.SETTINGS);
    }
    TypeName nullableList = list.annotated(com.palantir.javapoet.AnnotationSpec.builder(RuntimeNames.NULLABLE).build());
    TypeName nullableIterable = iterable.annotated(com.palantir.javapoet.AnnotationSpec.builder(RuntimeNames.NULLABLE).build());
    String sequenceArgs = d.variable() ? ", SEQUENCES, new $T(fixedLength, buckets)" : "";
    TypeSpec.Builder b = TypeSpec.classBuilder(builder);
    if (d.variable()) {
      SequenceWriter.builderSettings(d, builder, b);
    }
    if (shards) {
      ShardsWriter.builderSource(d, builder, b);
    }
    if (CollateWriter.encoded(d)) {
      imageSettings(d, builder, b);
    }
    if (packed.isPresent()) {
      com.palantir.javapoet.CodeBlock.Builder copy = com.palantir.javapoet.CodeBlock.builder()
          .addStatement("b.list = list")
          .addStatement("b.stream = stream");
      if (CollateWriter.encoded(d)) {
        // Packing reads token ids only: the documents' images are left undecoded.
        copy.addStatement("b.undecoded = true");
      }
      if (shards) {
        copy.addStatement("b.shards = shards");
      }
      if (d.variable()) {
        copy.addStatement("b.buckets = buckets").addStatement("b.fixedLength = fixedLength");
      }
      PackedWriter.builderMethods(d, packed.get(), builder, b, copy.build());
    }
    String noSource = d.provider().simpleName() + ": no samples; call samples(list)"
        + (shards ? ", streaming(iterable) or shards(location)" : " or streaming(iterable)") + " before build()";
    return b
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
        .superclass(ParameterizedTypeName.get(RuntimeNames.PROVIDER_BUILDER, builder))
        .addJavadoc("Builds {@link $T}s: the sample source plus the settings every provider shares.\n", d.provider())
        .addField(nullableList, "list", Modifier.PRIVATE)
        .addField(nullableIterable, "stream", Modifier.PRIVATE)
        .addMethod(constructor.build())
        .addMethod(MethodSpec.methodBuilder("samples")
            .addModifiers(Modifier.PUBLIC)
            .returns(builder)
            .addParameter(list, "samples")
            .addJavadoc("A random-access source: shuffle, every last-batch policy, shards and resume, like\n"
                + "{@code ArrayDataProvider}. The list is read, not copied; it must not change while iterated.\n")
            .addStatement("this.list = $T.requireNonNull(samples, $S)", java.util.Objects.class, "samples")
            .addStatement("this.stream = null")
            .addCode(shards ? "this.shards = null;\n" : "")
            .addStatement("return this")
            .build())
        .addMethod(MethodSpec.methodBuilder("streaming")
            .addModifiers(Modifier.PUBLIC)
            .returns(builder)
            .addParameter(iterable, "samples")
            .addJavadoc("A streaming source, read in order once per epoch: batch size, PARTIAL, DISCARD, PAD_CONSTANT,\n"
                + "PAD_WRAP, ROLL_OVER and shards (sample {@code i} goes to part {@code i % numParts}); no shuffle.\n"
                + "Resumes by replay when each {@code iterator()} of {@code samples} starts a new pass.\n")
            .addStatement("this.stream = $T.requireNonNull(samples, $S)", java.util.Objects.class, "samples")
            .addStatement("this.list = null")
            .addCode(shards ? "this.shards = null;\n" : "")
            .addStatement("return this")
            .build())
        .addMethod(MethodSpec.methodBuilder("build")
            .addModifiers(Modifier.PUBLIC)
            .returns(d.provider())
            .addJavadoc("Builds the provider and allocates its batch buffers.\n\n"
                + "@throws IllegalStateException if no source was set\n"
                + "@throws IllegalArgumentException for invalid settings\n")
            .addCode(shards ? ShardsWriter.buildBranch(d) : com.palantir.javapoet.CodeBlock.of(""))
            .addStatement("$T l = list", list)
            .beginControlFlow("if (l != null)")
            .addCode(decoders(d, "l.size()"))
            .addStatement("return new $T($T.<$T, $T>of($S, l, $T.resolve(settings()), $T::layout, $T::new, " + collate(d)
                + sequenceArgs + "))",
                sequenceArgs(d, d.provider(), RuntimeNames.SAMPLE_BATCHER, d.sample(), d.batch(), d.provider().simpleName(),
                RuntimeNames.SAMPLING, d.provider(), d.batch(), d.provider()))
            .endControlFlow()
            .addStatement("$T s = stream", iterable)
            .beginControlFlow("if (s != null)")
            .addCode(decoders(d, "$T.UNCOUNTED", RuntimeNames.IMAGE_DECODER))
            .addStatement("return new $T($T.<$T, $T>streaming($S, s, $T.resolve(settings()), $T::layout, $T::new, "
                + collate(d) + sequenceArgs + "))",
                sequenceArgs(d, d.provider(), RuntimeNames.SAMPLE_BATCHER, d.sample(), d.batch(), d.provider().simpleName(),
                RuntimeNames.SAMPLING, d.provider(), d.batch(), d.provider()))
            .endControlFlow()
            .addStatement("throw new $T($S)", IllegalStateException.class, noSource)
            .build())
        .build();
  }

  /**
   * The collate the batcher calls: the static method, or for a sample with encoded images a lambda
   * that hands it the provider's decoders ({@code $T} is the provider, as for the method reference).
   */
  private static String collate(SampleDescriptor d) {
    return CollateWriter.encoded(d) ? "(a, p, x, f, t, g) -> $T.collate(a, p, x, f, t, g, decoders)" : "$T::collate";
  }

  /**
   * For a sample with encoded images: {@code decoders}, one per member (null for the others), for
   * sample indices below {@code samples}, from the builder's image settings.
   */
  private static CodeBlock decoders(SampleDescriptor d, String samples, Object... args) {
    if (!CollateWriter.encoded(d)) {
      return CodeBlock.of("");
    }
    return CodeBlock.builder()
        .addStatement("@$T $T[] decoders = undecoded ? new $T[" + d.fields().size() + "] : images.decoders(fields(), "
            + samples + ", $S)",
            concat(new Object[] {RuntimeNames.NULLABLE, RuntimeNames.IMAGE_DECODER, RuntimeNames.IMAGE_DECODER}, args,
                new Object[] {d.provider().simpleName()}))
        .build();
  }

  private static Object[] concat(Object[]... parts) {
    java.util.List<Object> out = new java.util.ArrayList<>();
    for (Object[] p : parts) {
      out.addAll(java.util.Arrays.asList(p));
    }
    return out.toArray();
  }

  /** {@code args}, plus the SequenceOptions class when the sample has variable-length members. */
  private static Object[] sequenceArgs(SampleDescriptor d, Object... args) {
    if (!d.variable()) {
      return args;
    }
    Object[] out = java.util.Arrays.copyOf(args, args.length + 1);
    out[args.length] = RuntimeNames.SEQUENCE_OPTIONS;
    return out;
  }

  static String shapeConstant(FieldDescriptor f) {
    return f.constant() + "_SHAPE";
  }

  private static String joinDims(FieldDescriptor f) {
    StringBuilder sb = new StringBuilder();
    for (int dim : f.shape()) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(dim == dev.minibatch.Provides.VARIABLE ? "Shape.VARIABLE" : String.valueOf(dim));
    }
    return sb.toString();
  }

  private static String describeFields(SampleDescriptor d) {
    StringBuilder sb = new StringBuilder();
    for (FieldDescriptor f : d.fields()) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(f.label() ? "label " : "data ").append("{@code ").append(f.name()).append("} ").append(f.dtype())
          .append(' ').append(BatchWriter.batchShape(f));
    }
    return sb.toString();
  }

  static TypeName primitive(String name) {
    return switch (name) {
      case "boolean" -> TypeName.BOOLEAN;
      case "byte" -> TypeName.BYTE;
      case "short" -> TypeName.SHORT;
      case "char" -> TypeName.CHAR;
      case "int" -> TypeName.INT;
      case "long" -> TypeName.LONG;
      case "float" -> TypeName.FLOAT;
      case "double" -> TypeName.DOUBLE;
      default -> throw new IllegalArgumentException(name);
    };
  }

  static TypeName arrayOf(String primitive, int rank) {
    TypeName t = primitive(primitive);
    for (int i = 0; i < rank; i++) {
      t = ArrayTypeName.of(t);
    }
    return t;
  }

  /** The element type of the NIO view that writes {@code dtype}. */
  static String bufferElement(DType dtype) {
    return switch (dtype) {
      case BOOL, INT8, UINT8 -> "byte";
      case INT16 -> "short";
      case UINT16 -> "char";
      case INT32 -> "int";
      case INT64 -> "long";
      case FLOAT32 -> "float";
      case FLOAT64 -> "double";
      default -> throw new IllegalArgumentException("no NIO view for " + dtype);
    };
  }

  /** The CollateTarget method giving that view. */
  static String viewMethod(DType dtype) {
    return switch (bufferElement(dtype)) {
      case "byte" -> "bytes";
      case "short" -> "shorts";
      case "char" -> "chars";
      case "int" -> "ints";
      case "long" -> "longs";
      case "float" -> "floats";
      default -> "doubles";
    };
  }
}
