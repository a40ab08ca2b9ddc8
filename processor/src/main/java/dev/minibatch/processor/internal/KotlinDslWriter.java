package dev.minibatch.processor.internal;

import com.squareup.kotlinpoet.AnnotationSpec;
import com.squareup.kotlinpoet.ClassName;
import com.squareup.kotlinpoet.CodeBlock;
import com.squareup.kotlinpoet.FileSpec;
import com.squareup.kotlinpoet.FunSpec;
import com.squareup.kotlinpoet.KModifier;
import com.squareup.kotlinpoet.LambdaTypeName;
import com.squareup.kotlinpoet.ParameterizedTypeName;
import com.squareup.kotlinpoet.PropertySpec;
import com.squareup.kotlinpoet.TypeName;
import com.squareup.kotlinpoet.TypeNames;
import com.squareup.kotlinpoet.TypeSpec;
import java.util.List;

/**
 * Writes {@code <Sample>ProviderDsl.kt} for a Kotlin sample: {@code fun sensorProvider(block:
 * SensorProviderDsl.() -> Unit): SensorProvider}, a Kotlin face over the generated Java builder
 * ({@link ProviderWriter}). Every builder setting is a nullable property (null: unset, so the
 * builder keeps its own default; nothing here repeats one in code) or, for the sources and the
 * settings with several arguments, a function; per-member padding constants are a nested {@code
 * padding { }} block. Both receivers carry the {@code MinibatchDsl} marker of {@code
 * minibatch-kotlin}, so a nested block cannot reach the enclosing one's settings implicitly.
 *
 * <p>The block only records; when it returns, the settings go to a new builder in one place, {@code
 * build()}: the source first (so a setting such as {@code elasticShards} wins over what {@code
 * shards(...)} turns on, whatever order the block wrote them in), then every setting that is set,
 * then {@code build()}, which checks them as for Java callers.
 *
 * <p>Only produces the {@link FileSpec} from the validated model. {@link Writers} decides whether a
 * sample gets one (a Kotlin class, the marker on the class path, a front end that writes Kotlin) and
 * hands it to the front end's {@code Output}.
 */
final class KotlinDslWriter {
  /** The {@code @DslMarker} annotation class, in minibatch-kotlin. */
  static final ClassName MARKER = new ClassName("dev.minibatch.kotlin", "MinibatchDsl");

  private static final ClassName LAST_BATCH = new ClassName("dev.minibatch", "LastBatch");
  private static final ClassName PROVIDER_BUILDER = new ClassName(RuntimeNames.RT, "ProviderBuilder");
  private static final ClassName SETTINGS = new ClassName("dev.minibatch.runtime", "Settings");
  private static final ClassName AUTOTUNE = new ClassName("dev.minibatch.runtime", "Settings", "Autotune");
  private static final ClassName BAD_SAMPLES = new ClassName(RuntimeNames.RT, "ProviderBuilder", "BadSamples");
  private static final ClassName BUCKETS = new ClassName(RuntimeNames.RT, "Buckets");
  private static final ClassName SHARD_SOURCE = new ClassName("dev.minibatch.shards", "ShardSource");
  private static final ClassName SHARD_PROVIDER_BUILDER = new ClassName("dev.minibatch.shards", "ShardProvider",
      "Builder");
  private static final ClassName GENERATED = new ClassName("javax.annotation.processing", "Generated");

  private KotlinDslWriter() {}

  /** {@code SensorProvider} → {@code SensorProviderDsl}, beside it. */
  static ClassName dslName(SampleDescriptor d) {
    return new ClassName(d.provider().packageName(), d.provider().simpleName() + "Dsl");
  }

  /** {@code SensorProvider} → {@code sensorProvider}; a leading acronym is lower-cased whole ({@code MNISTDigit…} → {@code mnistDigit…}). */
  static String functionName(String provider) {
    String s = provider;
    int upper = 0;
    while (upper < s.length() && Character.isUpperCase(s.charAt(upper))) {
      upper++;
    }
    // In "MNISTDigit" the D starts the next word: keep it when a lower-case letter follows the run.
    int cut = upper > 1 && upper < s.length() && Character.isLowerCase(s.charAt(upper)) ? upper - 1 : upper;
    return s.substring(0, cut).toLowerCase(java.util.Locale.ROOT) + s.substring(cut);
  }

  /**
   * The DSL file of {@code d}.
   *
   * @param shards whether the Java builder has the shard-set sources (it has when {@link
   *     ShardsWriter} ran), so the DSL has them too
   * @param generated whether to mark the top-level declarations {@code @Generated}
   * @param packed the member the Java builder's {@code packed(...)} and {@code tokenBudget(...)} read
   *     (when {@link PackedWriter} ran), so the DSL has them too
   */
  static FileSpec write(SampleDescriptor d, boolean shards, boolean generated,
      java.util.Optional<FieldDescriptor> packed) {
    ClassName provider = kotlin(d.provider());
    ClassName builder = provider.nestedClass("Builder");
    ClassName dsl = dslName(d);
    ClassName padding = dsl.nestedClass("Padding");
    String function = functionName(d.provider().simpleName());
    TypeName builderCall = LambdaTypeName.get(null, new TypeName[] {builder}, TypeNames.UNIT).copy(true, List.of());

    TypeSpec.Builder t = TypeSpec.classBuilder(dsl)
        .addAnnotation(MARKER)
        .addKdoc("What [%L] builds a [%T] from: one property or function per setting of\n"
            + "[%T]. The block only records them; when it returns they go to a new\n"
            + "builder, the source first, then every setting that is set. A property left `null` keeps the\n"
            + "builder's default.\n", function, provider,
            builder)
        .primaryConstructor(FunSpec.constructorBuilder()
            .addModifiers(KModifier.INTERNAL)
            .addKdoc("Only [%L] makes one.\n", function)
            .build());
    if (generated) {
      t.addAnnotation(generated(d));
    }
    t.addProperty(PropertySpec.builder("source", builderCall, KModifier.PRIVATE).mutable(true).initializer("null")
        .addKdoc("The source call ([samples], [streaming]%L), made on the builder first.\n", shards ? ", [shards]" : "")
        .build());
    t.addProperty(PropertySpec.builder("sharding", builderCall, KModifier.PRIVATE).mutable(true).initializer("null")
        .addKdoc("The [shard] call, if the block made one.\n")
        .build());
    if (d.variable()) {
      t.addProperty(PropertySpec.builder("bucketing", builderCall, KModifier.PRIVATE).mutable(true).initializer("null")
          .addKdoc("The [buckets] call, if the block made one.\n")
          .build());
    }
    if (CollateWriter.encoded(d)) {
      TypeName call = LambdaTypeName.get(null, new TypeName[] {builder}, TypeNames.UNIT);
      t.addProperty(PropertySpec.builder("imaging", ParameterizedTypeName.get(TypeNames.MUTABLE_LIST, call),
              KModifier.PRIVATE)
          .initializer("mutableListOf()")
          .addKdoc("The [augment] and [normalize] calls, in order.\n")
          .build());
    }
    t.addProperty(PropertySpec.builder("paddings", padding, KModifier.PRIVATE).initializer("%T()", padding)
        .addKdoc("The per-member constants of [padding].\n")
        .build());

    for (Setting setting : settings(d, shards)) {
      t.addProperty(PropertySpec.builder(setting.name(), setting.type().copy(true, List.of()))
          .mutable(true)
          .initializer("null")
          .addKdoc(setting.kdoc())
          .build());
    }

    TypeName sample = kotlin(d.sample());
    t.addFunction(FunSpec.builder("samples")
        .addParameter("samples", ParameterizedTypeName.get(TypeNames.LIST, sample))
        .addKdoc("Reads [samples], a random-access source: shuffle, every last-batch policy, shards and resume. The\n"
            + "list is read, not copied; it must not change while iterated. Replaces an earlier source.\n")
        .addStatement("source = { it.samples(samples) }")
        .build());
    t.addFunction(FunSpec.builder("streaming")
        .addParameter("samples", ParameterizedTypeName.get(TypeNames.ITERABLE, sample))
        .addKdoc("Reads [samples] in order once per epoch, a streaming source (no shuffle; resumes by replay when\n"
            + "each `iterator()` starts a new pass). Replaces an earlier source.\n")
        .addStatement("source = { it.streaming(samples) }")
        .build());
    if (shards) {
      t.addFunction(FunSpec.builder("shards")
          .addParameter("location", TypeNames.STRING)
          .addKdoc("Reads the shard set in [location] (a local path or a Hadoop URI) with the shard reading defaults.\n"
              + "Turns [elasticShards] on unless it is set. Replaces an earlier source.\n")
          .addStatement("source = { it.shards(location) }")
          .build());
      t.addFunction(FunSpec.builder("shards")
          .addParameter("source", SHARD_SOURCE)
          .addKdoc("Reads the shard sets of [source] with its reading settings. Turns [elasticShards] on unless it is\n"
              + "set. Replaces an earlier source.\n")
          .addStatement("this.source = { it.shards(source) }")
          .build());
      t.addFunction(FunSpec.builder("shards")
          .addParameter("source", SHARD_PROVIDER_BUILDER)
          .addKdoc("Reads the shard sets of [source] with its reading settings; a batch setting made on it too must\n"
              + "agree with this block's. Turns [elasticShards] on unless it is set. Replaces an earlier source.\n")
          .addStatement("this.source = { it.shards(source) }")
          .build());
    }
    t.addFunction(FunSpec.builder("shard")
        .addParameter("numParts", TypeNames.INT)
        .addParameter("partIndex", TypeNames.INT)
        .addKdoc("Read only part [partIndex] of [numParts] disjoint parts that together cover every sample (MXNet's\n"
            + "`num_parts` / `part_index`). Unset: one part, the whole data set.\n")
        .addStatement("sharding = { it.shard(numParts, partIndex) }")
        .build());
    if (d.variable()) {
      String bucketed = d.fields().get(d.groups().get(0)).property();
      t.addFunction(FunSpec.builder("buckets")
          .addParameter("bounds", TypeNames.INT, KModifier.VARARG)
          .addKdoc("Groups samples by the length of `%L` into buckets with these bounds; each batch comes from one\n"
              + "bucket and is padded to its bound. A List source only. Replaces earlier buckets.\n", bucketed)
          .addStatement("bucketing = { it.buckets(*bounds) }")
          .build());
      t.addFunction(FunSpec.builder("buckets")
          .addParameter("buckets", BUCKETS)
          .addKdoc("Buckets with bounds given, or chosen from the data (`Buckets.byCount(n)`). Replaces earlier\n"
              + "buckets.\n")
          .addStatement("bucketing = { it.buckets(buckets) }")
          .build());
    }
    if (CollateWriter.encoded(d)) {
      List<String> images = d.fields().stream().filter(FieldDescriptor::encoded).map(FieldDescriptor::name).toList();
      for (String[] group : new String[][] {{"augment", "Augment", "crops, resizes, flips, colour"},
          {"normalize", "Normalize", "mean, std, scale"}}) {
        ClassName options = new ClassName("dev.minibatch.runtime.io.image", "ImageRecordProvider", group[1]);
        t.addFunction(FunSpec.builder(group[0])
            .addParameter("member", TypeNames.STRING)
            .addParameter("block", LambdaTypeName.get(options, new TypeName[0], TypeNames.UNIT))
            .addKdoc("%L the encoded image [member] (%L) as `ImageRecordProvider`'s `%L` does: %L. Calls add up, in\n"
                + "order.\n", group[0].equals("augment") ? "Augments" : "Normalises", String.join(", ", images), group[0],
                group[2])
            .addStatement("imaging += { it.%N(member) { o -> o.block() } }", group[0])
            .build());
      }
    }
    t.addFunction(FunSpec.builder("padding")
        .addParameter("block", LambdaTypeName.get(padding, new TypeName[0], TypeNames.UNIT))
        .addKdoc("Sets the constants that pad each member's rows under `PAD_CONSTANT`, one property per member.\n")
        .addStatement("paddings.block()")
        .build());
    t.addFunction(builderFunction(d, provider, shards));
    t.addFunction(FunSpec.builder("build")
        .addModifiers(KModifier.INTERNAL)
        .returns(provider)
        .addKdoc("The provider of [builder]'s settings, built.\n")
        .addStatement("return builder().build()")
        .build());
    t.addType(paddingType(d, padding, builder));

    FunSpec.Builder entry = FunSpec.builder(function)
        .addParameter("block", LambdaTypeName.get(dsl, new TypeName[0], TypeNames.UNIT))
        .returns(provider)
        .addKdoc("Builds a [%T] from [block]: a source ([%T.samples] or\n"
            + "[%T.streaming]) and any settings, each as on [%T], whose\n"
            + "defaults the unset ones keep. Close it (`use { }`) to free its buffers.\n\n"
            + "@throws IllegalStateException if [block] sets no source\n"
            + "@throws IllegalArgumentException for invalid settings\n", provider, dsl, dsl, builder)
        .addStatement("val dsl = %T()", dsl)
        .addStatement("dsl.block()")
        .addStatement("return dsl.build()");
    if (generated) {
      entry.addAnnotation(generated(d));
    }
    FileSpec.Builder file = FileSpec.builder(dsl.getPackageName(), dsl.getSimpleName())
        .addFileComment("Generated by the minibatch annotation processor from %L. Do not edit.",
            d.sample().canonicalName())
        .indent("  ")
        .addFunction(entry.build());
    packed.ifPresent(f -> {
      for (FunSpec.Builder fn : packedFunctions(d, f, dsl)) {
        if (generated) {
          fn.addAnnotation(generated(d));
        }
        file.addFunction(fn.build());
      }
    });
    return file.addType(t.build()).build();
  }

  /**
   * The builder settings the block sets as properties, each applied by {@code build()} when set:
   * one list for both, so a property and its application cannot drift apart.
   */
  private static List<Setting> settings(SampleDescriptor d, boolean shards) {
    List<Setting> settings = new java.util.ArrayList<>();
    // First, so that the single settings below override what a shared value sets.
    settings.add(new Setting("settings", SETTINGS, CodeBlock.of(
        "A shared [%T] value: every setting it sets, applied before the settings below. Unset: none.\n",
        SETTINGS)));
    settings.add(new Setting("batchSize", TypeNames.INT, CodeBlock.of(
        "Rows per batch, `>= 1`, or 0 for the whole data set (or shard) as one batch.\nUnset: %L.\n",
        d.batchSize() > 0 ? d.batchSize() + ", declared by `@DataProvider`"
            : "none is declared, so the block must set one")));
    settings.add(new Setting("lastBatch", LAST_BATCH, CodeBlock.of(
        "The last-batch policy ([%T]). Unset: `PARTIAL`.\n", LAST_BATCH)));
    settings.add(new Setting("shuffle", TypeNames.BOOLEAN, CodeBlock.of(
        "Shuffle every epoch (a permutation, data and labels together; a List source only).\nUnset: false.\n")));
    settings.add(new Setting("seed", TypeNames.LONG, CodeBlock.of(
        "The shuffle seed: with one, the order is a pure function of (seed, epoch). Unset: one is drawn when\n"
            + "the provider is built.\n")));
    settings.add(new Setting("evenShards", TypeNames.BOOLEAN, CodeBlock.of(
        "Give every part of [shard] the same number of samples, repeating the epoch's first samples in the\n"
            + "short parts. Unset: false.\n")));
    settings.add(new Setting("elasticShards", TypeNames.BOOLEAN, CodeBlock.of(
        "Deal the batches of one global order to the parts of [shard] in turn, so a saved state restores\n"
            + "into another number of parts (docs/engine.md, \"Elastic shards\"). Unset: false%L.\n",
        shards ? ", or true for a [shards] source" : "")));
    settings.add(new Setting("dataPadding", TypeNames.DOUBLE, CodeBlock.of(
        "The constant that pads data arrays without a [padding] of their own under `PAD_CONSTANT`.\nUnset: 0.\n")));
    settings.add(new Setting("labelPadding", TypeNames.DOUBLE, CodeBlock.of(
        "The constant that pads label arrays without a [padding] of their own under `PAD_CONSTANT`.\nUnset: 0.\n")));
    settings.add(new Setting("badSamples", BAD_SAMPLES, CodeBlock.of(
        "What to do with a sample that cannot be read: `BadSamples.skip(n)`, `replace(n)`, …\n"
            + "([%T]). Unset: the first one fails the epoch.\n", BAD_SAMPLES)));
    settings.add(new Setting("readers", TypeNames.INT, CodeBlock.of(
        "Reader threads collating a List source's batches ahead of the consumer; the batches are the same\n"
            + "for any number. Unset: 0, collated on the consumer's thread.\n")));
    settings.add(new Setting("prefetchBuffer", TypeNames.INT, CodeBlock.of(
        "Batches the [readers] may write ahead of the one the consumer waits for. Unset: one more than the\n"
            + "reader threads.\n")));
    settings.add(new Setting("autotune", AUTOTUNE, CodeBlock.of(
        "Choose [readers] and [prefetchBuffer] while the provider runs, within a budget of reader threads and\n"
            + "batch-buffer memory ([%T]); instead of setting them. Unset: they are set by hand.\n", AUTOTUNE)));
    if (d.variable()) {
      settings.add(new Setting("fixedLength", TypeNames.BOOLEAN, CodeBlock.of(
          "Pad every batch to the bound of each variable axis instead of to the batch's longest sample, so\n"
              + "every batch has the same shapes. Unset: false.\n")));
    }
    if (CollateWriter.encoded(d)) {
      settings.add(new Setting("reducedDecode", TypeNames.BOOLEAN, CodeBlock.of(
          "Decode JPEGs much larger than their output at 1/2, 1/4 or 1/8 of their size, as\n"
              + "`ImageRecordProvider` does. Unset: true.\n")));
    }
    return settings;
  }

  /** One builder setting of the block: its property (and setter) name, Kotlin type and KDoc. */
  private record Setting(String name, ClassName type, CodeBlock kdoc) {}

  /**
   * The DSL's {@code packed} and {@code tokenBudget} entries: the block's builder, then the Java
   * builder's method of the same name, each with an {@code Int} and a settings-value overload.
   */
  private static List<FunSpec.Builder> packedFunctions(SampleDescriptor d, FieldDescriptor f, ClassName dsl) {
    String p = d.provider().simpleName();
    String base = p.substring(0, p.length() - "Provider".length());
    ClassName typed = new ClassName("dev.minibatch.text", "TypedPackedBatches");
    TypeName packedBatches = com.squareup.kotlinpoet.ParameterizedTypeName.get(typed, kotlin(PackedWriter.batchName(d)));
    ClassName budgetBatches = new ClassName("dev.minibatch.text", "BudgetBatches");
    ClassName packing = new ClassName("dev.minibatch.text", "Packing");
    ClassName budget = new ClassName("dev.minibatch.text", "TokenBudget");
    List<FunSpec.Builder> out = new java.util.ArrayList<>();
    String packedName = functionName(base + "Packed");
    String budgetName = functionName(base + "TokenBudget");
    out.add(entry(packedName, "contextLength", TypeNames.INT, packedBatches, dsl, "packed", CodeBlock.of(
        "Packs each sample's `%L` into rows of [contextLength] token ids, concatenated, in batches of the\n"
        + "block's `batchSize` rows: [%T.Builder.packed]. Close the result (`use { }`).\n", f.property(), kotlin(d.provider()))));
    out.add(entry(packedName, "packing", packing, packedBatches, dsl, "packed", CodeBlock.of(
        "Packs each sample's `%L` by [packing]'s rules in batches of the block's `batchSize` rows, dealt by its\n"
        + "`shard(k, p)`: [%T.Builder.packed]. Close the result (`use { }`).\n", f.property(), kotlin(d.provider()))));
    out.add(entry(budgetName, "tokens", TypeNames.INT, budgetBatches, dsl, "tokenBudget", CodeBlock.of(
        "Batches of whole samples' `%L` of at most [tokens] positions, padding included:\n"
        + "[%T.Builder.tokenBudget]. Close the result (`use { }`).\n", f.property(), kotlin(d.provider()))));
    out.add(entry(budgetName, "budget", budget, budgetBatches, dsl, "tokenBudget", CodeBlock.of(
        "Batches of whole samples' `%L` under [budget]: [%T.Builder.tokenBudget]. Close the result (`use { }`).\n",
        f.property(), kotlin(d.provider()))));
    return out;
  }

  private static FunSpec.Builder entry(String name, String parameter, TypeName type, TypeName returns, ClassName dsl,
      String method, CodeBlock kdoc) {
    return FunSpec.builder(name)
        .addParameter(parameter, type)
        .addParameter("block", LambdaTypeName.get(dsl, new TypeName[0], TypeNames.UNIT))
        .returns(returns)
        .addKdoc(kdoc)
        .addStatement("val dsl = %T()", dsl)
        .addStatement("dsl.block()")
        .addStatement("return dsl.builder().%N(%N)", method, parameter);
  }

  private static FunSpec builderFunction(SampleDescriptor d, ClassName provider, boolean shards) {
    CodeBlock.Builder c = CodeBlock.builder()
        .addStatement("val builder = %T.builder()", provider)
        .addStatement("source?.invoke(builder)")
        .addStatement("sharding?.invoke(builder)");
    if (d.variable()) {
      c.addStatement("bucketing?.invoke(builder)");
    }
    for (Setting s : settings(d, shards)) {
      c.addStatement("%N?.let { builder.%N(it) }", s.name(), s.name());
    }
    if (CollateWriter.encoded(d)) {
      c.addStatement("imaging.forEach { it(builder) }");
    }
    c.addStatement("paddings.applyTo(builder)");
    c.addStatement("return builder");
    return FunSpec.builder("builder")
        .addModifiers(KModifier.INTERNAL)
        .returns(provider.nestedClass("Builder"))
        .addKdoc("A new [%T] with the source, then every setting that is set%L.\n",
            provider.nestedClass("Builder"), shards ? " (so a set [elasticShards] wins over [shards])" : "")
        .addCode(c.build())
        .build();
  }

  private static TypeSpec paddingType(SampleDescriptor d, ClassName padding, ClassName builder) {
    ClassName batch = kotlin(d.batch());
    TypeSpec.Builder p = TypeSpec.classBuilder(padding)
        .addAnnotation(MARKER)
        .addKdoc("The `PAD_CONSTANT` padding of each member of [%T], set in [%T.padding]'s\n"
            + "block. A member left `null` is padded with [%T.dataPadding] or\n[%T.labelPadding].\n",
            kotlin(d.sample()), dslName(d),
            dslName(d), dslName(d))
        .primaryConstructor(FunSpec.constructorBuilder()
            .addModifiers(KModifier.INTERNAL)
            .addKdoc("Only [%T] makes one.\n", dslName(d))
            .build());
    CodeBlock.Builder apply = CodeBlock.builder();
    for (FieldDescriptor f : d.fields()) {
      p.addProperty(PropertySpec.builder(f.property(), TypeNames.DOUBLE.copy(true, List.of()))
          .mutable(true)
          .initializer("null")
          .addKdoc("The constant that pads `%L` (%L `%L`). Unset: [%T.%L].\n", f.property(), f.label() ? "label" : "data",
              f.name(), dslName(d), f.label() ? "labelPadding" : "dataPadding")
          .build());
      // this.: a member may be named like the parameter.
      apply.addStatement("this.%N?.let { builder.padding(%T.%N, it) }", f.property(), batch, f.constant());
    }
    p.addFunction(FunSpec.builder("applyTo")
        .addModifiers(KModifier.INTERNAL)
        .addParameter("builder", builder)
        .addKdoc("Passes the constants that are set to [builder], by provided name.\n")
        .addCode(apply.build())
        .build());
    return p.build();
  }

  private static AnnotationSpec generated(SampleDescriptor d) {
    return AnnotationSpec.builder(GENERATED)
        .addMember("value = [%S]", Writers.GENERATOR)
        .addMember("comments = %S", "from " + d.sample().canonicalName())
        .build();
  }

  /** The KotlinPoet name of a JavaPoet one. */
  static ClassName kotlin(com.palantir.javapoet.ClassName name) {
    return new ClassName(name.packageName(), name.simpleNames());
  }
}
