package dev.minibatch.processor.internal;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import dev.minibatch.DType;
import dev.minibatch.processor.internal.model.Round;
import java.util.Optional;
import javax.lang.model.element.Modifier;

/**
 * With {@code minibatch-text} on the compile class path, for a sample with a variable-length INT32
 * member (one {@code VARIABLE} axis, the first such member, data before labels): {@code
 * <Sample>PackedBatch}, the typed packed batch, and the provider builder's {@code packed(...)} and
 * {@code tokenBudget(...)}, which build the documents' provider from the builder's source and
 * settings and hand it to the text module's public classes (docs/text.md, "Generated providers").
 */
final class PackedWriter {
  private static final String TEXT = "dev.minibatch.text";
  static final ClassName PACKING = ClassName.get(TEXT, "Packing");
  private static final ClassName PACKED_BATCH = ClassName.get(TEXT, "PackedBatch");
  private static final ClassName TYPED_PACKED_BATCHES = ClassName.get(TEXT, "TypedPackedBatches");
  private static final ClassName TOKEN_BUDGET = ClassName.get(TEXT, "TokenBudget");
  private static final ClassName BUDGET_BATCHES = ClassName.get(TEXT, "BudgetBatches");

  private PackedWriter() {}

  static boolean available(Round round) {
    return round.exists(PACKING.canonicalName());
  }

  /** The member packing reads: the first with one variable axis and INT32 elements. */
  static Optional<FieldDescriptor> member(SampleDescriptor d) {
    return d.fields().stream()
        .filter(f -> f.variable() && f.shape().size() == 1 && f.dtype() == DType.INT32)
        .findFirst();
  }

  /** {@code Line} → {@code LinePackedBatch}, beside {@code LineProvider}. */
  static ClassName batchName(SampleDescriptor d) {
    String p = d.provider().simpleName();
    return d.provider().peerClass(p.substring(0, p.length() - "Provider".length()) + "PackedBatch");
  }

  static TypeSpec.Builder writeBatch(SampleDescriptor d, FieldDescriptor f) {
    ClassName name = batchName(d);
    String m = "{@code " + f.property() + "}";
    TypeSpec.Builder t = TypeSpec.classBuilder(name)
        .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
        .addJavadoc("A batch of {@link $T} samples' $L packed into rows of the context length {@code L}: one trainer's\n"
            + "global batch of {@code $T.builder()…packed(…)}, each array INT32 {@code (rows, L)} but {@link\n"
            + "#$LBoundaries()}. Made from the rows on each call; {@link #packed()} has the rows themselves.\n",
            d.sample(), m, d.provider(), f.accessor())
        .addField(FieldSpec.builder(PACKED_BATCH, "packed", Modifier.PRIVATE, Modifier.FINAL).build())
        .addMethod(MethodSpec.constructorBuilder()
            .addParameter(PACKED_BATCH, "packed")
            .addJavadoc("The typed view of {@code packed}.\n")
            .addStatement("this.packed = packed")
            .build())
        .addMethod(MethodSpec.methodBuilder("packed")
            .addModifiers(Modifier.PUBLIC)
            .returns(PACKED_BATCH)
            .addJavadoc("The untyped batch: its global index and its rows (segments, documents, offsets).\n")
            .addStatement("return packed")
            .build())
        .addMethod(MethodSpec.methodBuilder("index")
            .addModifiers(Modifier.PUBLIC)
            .returns(long.class)
            .addJavadoc("The global batch: it holds the epoch's packed rows {@code [index·R, (index+1)·R)}.\n")
            .addStatement("return packed.index()")
            .build())
        .addMethod(MethodSpec.methodBuilder("rows")
            .addModifiers(Modifier.PUBLIC)
            .returns(int.class)
            .addJavadoc("The rows of this batch: the batch size, fewer in an epoch's last batch.\n")
            .addStatement("return packed.rows().size()")
            .build());
    getter(t, f.accessor(), "ids", "The token ids of " + m + ", packed: the padding id after each row's real tokens.");
    getter(t, f.accessor() + "Labels", "labels", "The next token of each position within its document, {@code "
        + "Packing.IGNORE} where none follows in the row.\n\n@throws IllegalStateException unless the packing was built"
        + " with {@code shiftLabels(true)}");
    getter(t, f.accessor() + "LossMask", "lossMask", "1 on a real token (separators included), 0 on padding.");
    getter(t, f.accessor() + "SegmentIds", "segmentIds", "The segment of each position: 1 for a row's first document"
        + " (or piece of one), 2 for its second, …; 0 for padding.");
    getter(t, f.accessor() + "PositionIds", "positionIds", "The position of each token within its segment, from 0; 0"
        + " for padding.");
    getter(t, f.accessor() + "Boundaries", "boundaries", "The {@code cu_seqlens} of the batch as one sequence of {@code"
        + " rows·L} positions, for variable-length attention: INT32 {@code (segments + 1)}, a row's padding one more"
        + " segment ({@code PackedBatch.boundaries()}).");
    return t.addMethod(MethodSpec.methodBuilder("toString")
        .addAnnotation(Override.class)
        .addModifiers(Modifier.PUBLIC)
        .returns(String.class)
        .addStatement("return $S + packed.index() + $S + packed.rows().size() + $S", name.simpleName() + "[",
            ", ", " rows]")
        .build());
  }

  private static void getter(TypeSpec.Builder t, String name, String delegate, String doc) {
    t.addMethod(MethodSpec.methodBuilder(name)
        .addModifiers(Modifier.PUBLIC)
        .returns(RuntimeNames.INDARRAY)
        .addJavadoc(doc + "\n")
        .addStatement("return packed.$L()", delegate)
        .build());
  }

  /**
   * The builder's {@code packed(...)} and {@code tokenBudget(...)}, and {@code documents(settings)},
   * which builds the documents' provider from a copy of the builder's source ({@code copySource}
   * copies the source fields into {@code b}).
   */
  static void builderMethods(SampleDescriptor d, FieldDescriptor f, ClassName builder, TypeSpec.Builder b,
      com.palantir.javapoet.CodeBlock copySource) {
    TypeName typed = ParameterizedTypeName.get(TYPED_PACKED_BATCHES, batchName(d));
    String m = "{@code " + f.property() + "}";
    String member = "$T.$L";
    b.addMethod(MethodSpec.methodBuilder("packed")
        .addModifiers(Modifier.PUBLIC)
        .returns(typed)
        .addParameter(int.class, "contextLength")
        .addJavadoc("Packs each sample's " + m + ", a document of token ids, into rows of {@code contextLength} ids,\n"
            + "concatenated: {@code packed(Packing.builder(contextLength).build())}.\n\n"
            + "@throws IllegalArgumentException if {@code contextLength} is not positive, or as {@link #packed($T)}\n",
            PACKING)
        .addStatement("return packed($T.builder(contextLength).build())", PACKING)
        .build());
    b.addMethod(MethodSpec.methodBuilder("packed")
        .addModifiers(Modifier.PUBLIC)
        .returns(typed)
        .addParameter(PACKING, "packing")
        .addJavadoc("Packs each sample's " + m + ", a document of token ids, by {@code packing}'s rules into batches of\n"
            + "{@code batchSize} rows, {@code shard(k, p)} dealing them to trainer {@code p} of {@code k} (resumable under\n"
            + "another trainer count); the documents are read in this builder's order (source, shuffle, seed) by a\n"
            + "provider built now, which the result owns: close it. See {@code Packing.batches(Settings, …)}.\n\n"
            + "@throws IllegalStateException if no source was set\n"
            + "@throws IllegalArgumentException if no batch size is set, the settings drop or repeat documents\n"
            + "    ({@code lastBatch} other than {@code PARTIAL}, {@code evenShards}), or for invalid settings\n")
        .addStatement("return packing.batches(settings(), this::documents, " + member + ", $T::new)", d.batch(),
            f.constant(), batchName(d))
        .build());
    b.addMethod(MethodSpec.methodBuilder("tokenBudget")
        .addModifiers(Modifier.PUBLIC)
        .returns(BUDGET_BATCHES)
        .addParameter(int.class, "tokens")
        .addJavadoc("Batches of whole samples' " + m + " under a budget of {@code tokens} positions, padding included:\n"
            + "{@code tokenBudget(TokenBudget.builder(tokens).build())}.\n\n"
            + "@throws IllegalArgumentException if {@code tokens} is not positive, or as {@link #tokenBudget($T)}\n",
            TOKEN_BUDGET)
        .addStatement("return tokenBudget($T.builder(tokens).build())", TOKEN_BUDGET)
        .build());
    b.addMethod(MethodSpec.methodBuilder("tokenBudget")
        .addModifiers(Modifier.PUBLIC)
        .returns(BUDGET_BATCHES)
        .addParameter(TOKEN_BUDGET, "budget")
        .addJavadoc("Batches of whole samples' " + m + " under {@code budget}: batch sizes vary, no batch holds more\n"
            + "positions than the budget. The documents are read in this builder's order and share of the epoch\n"
            + "({@code shard(k, p)}: each trainer batches its own), {@code batchSize} of them a step (the budget's window\n"
            + "when none is set), by a provider built now, which the result owns: close it.\n\n"
            + "@throws IllegalStateException if no source was set\n"
            + "@throws IllegalArgumentException if the settings drop or repeat documents ({@code lastBatch} other\n"
            + "    than {@code PARTIAL}, {@code evenShards}), or for invalid settings\n")
        .addStatement("return budget.batches(settings(), this::documents, " + member + ")", d.batch(), f.constant())
        .build());
    b.addMethod(MethodSpec.methodBuilder("documents")
        .addModifiers(Modifier.PRIVATE)
        .returns(d.provider())
        .addParameter(RuntimeNames.SETTINGS, "documentSettings")
        .addJavadoc("The documents' provider of {@code packed} and {@code tokenBudget}: this builder's source with\n"
            + "{@code documentSettings}; this builder stays as it is.\n")
        .addStatement("$T b = new $T()", builder, builder)
        .addCode(copySource)
        .addStatement("return b.settings(documentSettings).build()")
        .build());
  }
}
