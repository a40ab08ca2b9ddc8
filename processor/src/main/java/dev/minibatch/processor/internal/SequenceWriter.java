package dev.minibatch.processor.internal;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import java.util.List;
import javax.lang.model.element.Modifier;

/**
 * Writes what a provider with variable-length members adds: the {@code SEQUENCES} description the
 * runtime sizes buffers and batches by (per layout position its variable axis and length group,
 * per group its bound), the {@code length} method that measures a sample, and the builder's
 * {@code fixedLength} setting.
 */
final class SequenceWriter {
  private SequenceWriter() {}

  static void write(SampleDescriptor d, TypeSpec.Builder t) {
    List<FieldDescriptor> fields = d.fields();
    CodeBlock.Builder axes = CodeBlock.builder();
    CodeBlock.Builder groups = CodeBlock.builder();
    for (int i = 0; i < fields.size(); i++) {
      axes.add(i == 0 ? "$L" : ", $L", fields.get(i).variableAxis());
      groups.add(i == 0 ? "$L" : ", $L", fields.get(i).group());
    }
    CodeBlock.Builder names = CodeBlock.builder();
    CodeBlock.Builder bounds = CodeBlock.builder();
    CodeBlock.Builder policies = CodeBlock.builder();
    for (int g = 0; g < d.groups().size(); g++) {
      FieldDescriptor root = fields.get(d.groups().get(g));
      names.add(g == 0 ? "$S" : ", $S", root.name());
      bounds.add(g == 0 ? "$L" : ", $L", root.maxLength());
      policies.add(g == 0 ? "$T.$L" : ", $T.$L", RuntimeNames.TOO_LONG, root.tooLong().name());
    }
    t.addField(FieldSpec.builder(ParameterizedTypeName.get(RuntimeNames.SEQUENCE_FIELDS, d.sample()), "SEQUENCES",
            Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .initializer("new $T<>(new int[] {$L}, new int[] {$L}, $T.of($L), new int[] {$L}, new $T[] {$L}, $T::length)",
            RuntimeNames.SEQUENCE_FIELDS, axes.build(), groups.build(), List.class, names.build(), bounds.build(),
            RuntimeNames.TOO_LONG, policies.build(), d.provider())
        .build());

    for (FieldDescriptor f : fields) {
      if (f.variable() && f.storage() != FieldType.Storage.INDARRAY) {
        t.addField(FieldSpec.builder(ProviderWriter.arrayOf(ProviderWriter.bufferElement(f.dtype()), 1),
                CollateWriter.padRowConstant(f), Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
            .initializer(CollateWriter.padRowInitializer(f))
            .build());
      }
    }
    MethodSpec.Builder m = MethodSpec.methodBuilder("length")
        .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
        .returns(int.class)
        .addParameter(d.sample(), "sample")
        .addParameter(int.class, "group")
        .addParameter(long.class, "index")
        .addJavadoc("The length of {@code sample}'s variable axis in length {@code group}, before its bound.\n");
    m.beginControlFlow("switch (group)");
    for (int g = 0; g < d.groups().size(); g++) {
      FieldDescriptor root = fields.get(d.groups().get(g));
      CodeBlock.Builder c = CodeBlock.builder();
      c.add("case $L: {\n$>", g);
      c.addStatement("$T v = sample.$L", CollateWriter.valueType(root), root.read());
      c.beginControlFlow("if (v == null)");
      c.addStatement("throw $T.nullMember($S, index)", RuntimeNames.COLLATE, root.name());
      c.endControlFlow();
      String length = CollateWriter.rawLength(c, root, "v", "index");
      c.addStatement("return $L", length);
      c.add("$<}\n");
      m.addCode(c.build());
    }
    m.addCode("default:\n$>");
    m.addStatement("throw new $T($S + group)", IllegalArgumentException.class, "no length group ");
    m.addCode("$<");
    m.endControlFlow();
    t.addMethod(m.build());
  }

  static void builderSettings(SampleDescriptor d, ClassName builder, TypeSpec.Builder b) {
    ClassName buckets = ClassName.get(RuntimeNames.RT, "Buckets");
    String bucketed = d.fields().get(d.groups().get(0)).name();
    b.addField(FieldSpec.builder(buckets.annotated(com.palantir.javapoet.AnnotationSpec.builder(RuntimeNames.NULLABLE)
        .build()), "buckets", Modifier.PRIVATE).build());
    b.addMethod(MethodSpec.methodBuilder("buckets")
        .addModifiers(Modifier.PUBLIC)
        .returns(builder)
        .addParameter(int[].class, "bounds")
        .varargs(true)
        .addJavadoc("Groups samples by the length of {@code $L} into buckets with these bounds (MXNet's BucketingIter):\n"
            + "a sample goes to the smallest bound at least its length, each batch comes from one bucket, is padded\n"
            + "to its bound and reports it as {@code bucketKey()}. Seeded, resumable and sharded like any order; every\n"
            + "last-batch policy applies per bucket. A List source only.\n", bucketed)
        .addStatement("return buckets($T.of(bounds))", buckets)
        .build());
    b.addMethod(MethodSpec.methodBuilder("buckets")
        .addModifiers(Modifier.PUBLIC)
        .returns(builder)
        .addParameter(buckets, "buckets")
        .addJavadoc("{@link #buckets(int...)} with bounds given, or chosen from the data ({@code Buckets.byCount(n)}).\n")
        .addStatement("this.buckets = $T.requireNonNull(buckets, $S)", java.util.Objects.class, "buckets")
        .addStatement("return this")
        .build());
    b.addField(TypeName.BOOLEAN, "fixedLength", Modifier.PRIVATE);
    b.addMethod(MethodSpec.methodBuilder("fixedLength")
        .addModifiers(Modifier.PUBLIC)
        .returns(builder)
        .addParameter(TypeName.BOOLEAN, "fixedLength")
        .addJavadoc("Pads every batch to the bound of each variable axis (its maxLength, or the longest sample of the\n"
            + "list) instead of to the batch's longest sample, so every batch has the same shapes (default false).\n")
        .addStatement("this.fixedLength = fixedLength")
        .addStatement("return this")
        .build());
  }
}
