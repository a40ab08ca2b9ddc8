package dev.minibatch.processor.internal;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ArrayTypeName;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import com.palantir.javapoet.WildcardTypeName;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Modifier;

/**
 * With {@code minibatch-shards} on the compile class path, for every sample: {@code <Sample>Shards}
 * (writing samples as a shard set) and the provider builder's {@code shards(...)} source (reading
 * one as typed batches), both through the shards module's public classes (docs/shards.md,
 * "Generated code"). A sample with variable-length members is written from Lists of samples (a
 * List source measures their lengths; a streaming one would need a maxLength on every member) and
 * read with its sequence declarations, padded as a List source pads them.
 */
final class ShardsWriter {
  private static final String SHARDS = "dev.minibatch.shards";
  static final ClassName SHARD_PROVIDER = ClassName.get(SHARDS, "ShardProvider");
  static final ClassName SHARD_PROVIDER_BUILDER = SHARD_PROVIDER.nestedClass("Builder");
  static final ClassName SHARD_SOURCE = ClassName.get(SHARDS, "ShardSource");
  static final ClassName GENERATED_SHARDS = ClassName.get(SHARDS + ".internal", "GeneratedShards");
  static final ClassName SHARD_WRITER = ClassName.get(SHARDS, "ShardWriter");
  static final ClassName SHARD_SET = ClassName.get(SHARDS, "ShardSet");
  static final ClassName LAST_BATCH = ClassName.get("dev.minibatch", "LastBatch");
  /** The batch size the writer reads samples in: large enough for long bulk copies, small in memory. */
  private static final int WRITE_BATCH = 1024;

  private ShardsWriter() {}

  static boolean available(dev.minibatch.processor.internal.model.Round round) {
    return round.exists(SHARD_WRITER.canonicalName());
  }

  /** {@code Digit} → {@code DigitShards}, beside {@code DigitProvider}. */
  static ClassName name(SampleDescriptor d) {
    String p = d.provider().simpleName();
    return d.provider().peerClass(p.substring(0, p.length() - "Provider".length()) + "Shards");
  }

  static TypeSpec.Builder write(SampleDescriptor d) {
    TypeName samples = ParameterizedTypeName.get(ClassName.get(Iterable.class), WildcardTypeName.subtypeOf(d.sample()));
    return TypeSpec.classBuilder(name(d))
        .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
        .addJavadoc("Shard sets of {@link $T} samples: Parquet files with an index (docs/shards.md), one column per\n"
            + "member. Read one back with {@code $T.builder().shards(location)}.\n", d.sample(), d.provider())
        .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build())
        .addMethod(MethodSpec.methodBuilder("write")
            .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
            .returns(SHARD_SET)
            .addParameter(samples, "samples")
            .addParameter(String.class, "directory")
            .addJavadoc("Writes {@code samples}, in their order, as a shard set in {@code directory} (a local path or a\n"
                + "Hadoop URI; empty or absent) with the default writer: files of 10 000 samples, uncompressed.\n\n"
                + "@return the shard set written\n")
            .addStatement("return write(samples, directory, $T.builder().build())", SHARD_WRITER)
            .build())
        .addMethod(MethodSpec.methodBuilder("write")
            .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
            .returns(SHARD_SET)
            .addParameter(samples, "samples")
            .addParameter(String.class, "directory")
            .addParameter(SHARD_WRITER, "writer")
            .addJavadoc("Writes {@code samples}, in their order, as a shard set in {@code directory} with {@code writer}'s\n"
                + "settings (samples per file, compression, Hadoop configuration). The samples are read once, in\n"
                + "batches of $L, so an {@code Iterable} that streams them from elsewhere is never held whole.\n"
                + (d.variable() ? "Variable-length members are stored as their real steps (after their maxLength); the\n"
                    + "files are one segment of the set, {@code part-00000-00000.parquet}, ….\n" : "")
                + "\n@return the shard set written\n", WRITE_BATCH)
            .addCode(inLists(d) ? writeInLists(d) : writeStreaming(d))
            .build())
        .addMethods(inLists(d) ? List.of(writeList(d)) : List.of())
        .addMethods(CollateWriter.encoded(d) ? List.of(encodedBytes(d)) : List.of());
  }

  /**
   * Whether the samples are written in Lists: variable-length members (a List source measures their
   * lengths) and encoded images (the writer takes each image's bytes from its sample, by index).
   */
  private static boolean inLists(SampleDescriptor d) {
    return d.variable() || CollateWriter.encoded(d);
  }

  /** {@code encodedBytes(sample, field)}: the bytes of the encoded-image member at {@code field}. */
  private static MethodSpec encodedBytes(SampleDescriptor d) {
    MethodSpec.Builder m = MethodSpec.methodBuilder("encodedBytes")
        .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
        .returns(ArrayTypeName.of(TypeName.BYTE).annotated(AnnotationSpec.builder(RuntimeNames.NULLABLE).build()))
        .addParameter(d.sample(), "sample")
        .addParameter(int.class, "field")
        .addJavadoc("The encoded bytes of the member at {@code field} (data, then labels) of {@code sample}.\n")
        .beginControlFlow("switch (field)");
    for (int i = 0; i < d.fields().size(); i++) {
      FieldDescriptor f = d.fields().get(i);
      if (f.encoded()) {
        m.addStatement("case $L: return sample.$L", i, f.read());
      }
    }
    return m.addStatement("default: throw new $T($S + field)", IllegalArgumentException.class,
            "not an encoded-image member: ")
        .endControlFlow()
        .build();
  }

  private static CodeBlock writeStreaming(SampleDescriptor d) {
    return CodeBlock.builder()
        .beginControlFlow("try ($T p = $T.builder().streaming(samples).batchSize($L).lastBatch($T.PARTIAL).build())",
            d.provider(), d.provider(), WRITE_BATCH, LAST_BATCH)
        .addStatement("return writer.write(p, directory)")
        .endControlFlow()
        .build();
  }

  /** Lists of {@code WRITE_BATCH} samples, each written by a List provider into one segment, then committed. */
  private static CodeBlock writeInLists(SampleDescriptor d) {
    TypeName list = ParameterizedTypeName.get(ClassName.get(List.class), d.sample());
    return CodeBlock.builder()
        .addStatement("$T.WrittenSegment written", SHARD_WRITER)
        .beginControlFlow("try ($T.Segment segment = writer.segment(directory, 0))", SHARD_WRITER)
        .addStatement("$T chunk = new $T<>($L)", list, ArrayList.class, WRITE_BATCH)
        .addStatement("long base = 0")
        .beginControlFlow("for ($T sample : samples)", d.sample())
        .addStatement("chunk.add(sample)")
        .beginControlFlow("if (chunk.size() == $L)", WRITE_BATCH)
        .addStatement("writeList(segment, chunk, base)")
        .addStatement("base += chunk.size()")
        .addStatement("chunk = new $T<>($L)", ArrayList.class, WRITE_BATCH)
        .endControlFlow()
        .endControlFlow()
        .beginControlFlow("if (!chunk.isEmpty())")
        .addStatement("writeList(segment, chunk, base)")
        .endControlFlow()
        .addStatement("written = segment.finish()")
        .endControlFlow()
        .addStatement("return writer.commit(directory, $T.of(written))", List.class)
        .build();
  }

  /** {@code writeList(segment, chunk, base)}, which a List provider writes {@code chunk} with. */
  static final String WRITE_LIST = "writeList";

  private static MethodSpec writeList(SampleDescriptor d) {
    boolean encoded = CollateWriter.encoded(d);
    // Package-private: the generated <Sample>SparkRows of an encoded sample writes its executors' segments with it.
    return MethodSpec.methodBuilder(WRITE_LIST)
        .addModifiers(Modifier.STATIC)
        .addParameter(SHARD_WRITER.nestedClass("Segment"), "segment")
        .addParameter(ParameterizedTypeName.get(ClassName.get(List.class), d.sample()), "chunk")
        .addParameter(long.class, "base")
        .addJavadoc("Appends {@code chunk}, samples {@code base, base + 1, …} of those written, to {@code segment}, read\n"
            + "by a List provider (which measures the lengths).\n")
        // An encoded sample's batches are never decoded, but their buffers are allocated: bounded to 64 MiB.
        .beginControlFlow("try ($T p = $T.builder().samples(chunk).batchSize($L).lastBatch($T.PARTIAL)$L.build())",
            d.provider(), d.provider(), encoded ? CodeBlock.of("(int) Math.max(1, Math.min($L, (64L << 20) / $T.BYTES_PER_SAMPLE))",
                WRITE_BATCH, d.provider()) : CodeBlock.of("$L", WRITE_BATCH), LAST_BATCH, encoded ? ".undecoded()" : "")
        .addCode(encoded
            // The images are stored as they are: the provider leaves them undecoded, the writer takes their bytes.
            ? CodeBlock.of("$T.writeEncoded(segment, p, $T.fields(), (sample, field) -> encodedBytes(chunk.get((int) sample),"
                + " field), base);\n", GENERATED_SHARDS, d.provider())
            : CodeBlock.of("segment.write(p);\n"))
        .endControlFlow()
        .build();
  }

  /** The builder's {@code shards} field and its two setters. */
  static void builderSource(SampleDescriptor d, ClassName builder, TypeSpec.Builder b) {
    TypeName nullable = SHARD_PROVIDER_BUILDER.annotated(AnnotationSpec.builder(RuntimeNames.NULLABLE).build());
    b.addField(FieldSpec.builder(nullable, "shards", Modifier.PRIVATE).build());
    b.addMethod(MethodSpec.methodBuilder("shards")
        .addModifiers(Modifier.PUBLIC)
        .returns(builder)
        .addParameter(String.class, "location")
        .addJavadoc("Reads the shard set in {@code location} (a local path or a Hadoop URI, written by {@code $T.write})\n"
            + "in its global order, with the shard reading defaults of {@code ShardProvider}: every last-batch policy,\n"
            + "shuffle within windows, shards and resume. Elastic sharing is the shard source's default (call\n"
            + "{@code elasticShards(false)} for contiguous parts).\n", name(d))
        .addStatement("return shards($T.builder(location))", SHARD_PROVIDER)
        .build());
    b.addMethod(MethodSpec.methodBuilder("shards")
        .addModifiers(Modifier.PUBLIC)
        .returns(builder)
        .addParameter(SHARD_SOURCE, "source")
        .addJavadoc("Reads the shard sets of {@code source} ({@code ShardSource.of(location)} or {@code\n"
            + "ShardSource.mix()}) with its reading settings; every batch setting is this builder's.\n")
        .addStatement("return shards($T.builder(source))", SHARD_PROVIDER)
        .build());
    b.addMethod(MethodSpec.methodBuilder("shards")
        .addModifiers(Modifier.PUBLIC)
        .returns(builder)
        .addParameter(SHARD_PROVIDER_BUILDER, "source")
        .addJavadoc("Reads the shard sets of {@code source} ({@code ShardProvider.builder(location)} or {@code\n"
            + "ShardProvider.mix()}) with its reading settings (sets and weights, {@code samplesPerEpoch}, {@code\n"
            + "shuffleWindow}, {@code cacheFiles}, {@code readAhead}, {@code configuration}). Batch\n"
            + "size, policy, shuffle, seed, shards and readers may be set on either builder; one set differently on both\n"
            + "is refused at {@code build()}. Elastic sharing is the shard source's default: {@code\n"
            + "elasticShards(false)} on either builder turns it off.\n")
        .addStatement("this.shards = $T.requireNonNull(source, $S)", java.util.Objects.class, "source")
        .addStatement("this.list = null")
        .addStatement("this.stream = null")
        .addStatement("return this")
        .build());
  }

  /** For a sample with encoded images, the batcher's last argument: the builder's image settings and the fields. */
  private static String images(SampleDescriptor d) {
    return CollateWriter.encoded(d) ? ", new " + GENERATED_SHARDS.canonicalName() + ".Images(images, fields())" : "";
  }

  /** The first branch of the builder's {@code build()}: a shard source, when one is set. */
  static CodeBlock buildBranch(SampleDescriptor d) {
    CodeBlock.Builder c = CodeBlock.builder()
        .addStatement("$T sh = shards", SHARD_PROVIDER_BUILDER)
        .beginControlFlow("if (sh != null)");
    if (d.variable()) {
      // The members' declarations and step paddings: the shard source pads as a List source does.
      CodeBlock.Builder pads = CodeBlock.builder();
      for (int i = 0; i < d.fields().size(); i++) {
        double p = d.fields().get(i).stepPadding();
        String v = Double.isNaN(p) ? "Double.NaN" : Double.isInfinite(p)
            ? (p > 0 ? "Double.POSITIVE_INFINITY" : "Double.NEGATIVE_INFINITY") : p + "d";
        pads.add(i == 0 ? "$L" : ", $L", v);
      }
      c.addStatement("return new $T($T.<$T, $T>batcher(sh, givenSettings(), defaultSettings(), $S, $T::layout, $T::new, SEQUENCES, new $T(fixedLength,"
          + " buckets), new double[] {$L}" + images(d) + "))", d.provider(), GENERATED_SHARDS, d.sample(), d.batch(),
          d.provider().simpleName(), d.provider(), d.batch(), RuntimeNames.SEQUENCE_OPTIONS, pads.build());
    } else {
      c.addStatement("return new $T($T.<$T, $T>batcher(sh, givenSettings(), defaultSettings(), $S, $T::layout, $T::new"
          + images(d) + "))", d.provider(), GENERATED_SHARDS, d.sample(), d.batch(), d.provider().simpleName(),
          d.provider(), d.batch());
    }
    return c.endControlFlow().build();
  }
}
