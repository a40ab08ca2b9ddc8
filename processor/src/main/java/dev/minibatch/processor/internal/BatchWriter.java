package dev.minibatch.processor.internal;

import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeSpec;
import javax.lang.model.element.Modifier;

/**
 * Writes {@code <Sample>Batch}: an {@code AbstractBatch} with one name constant and one typed
 * accessor per member. {@code getX()} accessors, so Kotlin reads them as properties ({@code
 * batch.image}); everything else (slicing, splitting, loadData, copy) is inherited, so it behaves
 * exactly like every other batch.
 */
final class BatchWriter {
  private BatchWriter() {}

  static TypeSpec.Builder write(SampleDescriptor d) {
    TypeSpec.Builder t = TypeSpec.classBuilder(d.batch())
        .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
        .superclass(ParameterizedTypeName.get(RuntimeNames.ABSTRACT_BATCH, d.batch()))
        .addJavadoc("A batch of {@link $T} samples, batch axis first. Valid until its iterator has moved two\n"
            + "batches on; {@link #copy()} keeps one.\n", d.sample());
    for (FieldDescriptor f : d.fields()) {
      t.addField(FieldSpec.builder(String.class, f.constant(), Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
          .addJavadoc("The provided name of {@code $L}.\n", f.property())
          .initializer("$S", f.name())
          .build());
    }
    t.addMethod(MethodSpec.constructorBuilder()
        .addJavadoc("An empty batch; the provider fills it.\n")
        .addParameter(RuntimeNames.BATCH_LAYOUT, "layout")
        .addStatement("super(layout)")
        .build());
    int i = 0;
    for (FieldDescriptor f : d.fields()) {
      t.addMethod(MethodSpec.methodBuilder(f.accessor())
          .addModifiers(Modifier.PUBLIC)
          .returns(RuntimeNames.INDARRAY)
          .addJavadoc("$L {@code $L} ($L): $L, shape {@code $L}.\n",
              f.label() ? "The label" : "The data", f.name(), f.property(), f.dtype(), batchShape(f))
          .addStatement("return array($L)", i++)
          .build());
    }
    for (FieldDescriptor f : d.fields()) {
      if (!f.variable()) {
        continue;
      }
      t.addMethod(MethodSpec.methodBuilder(f.accessor() + "Mask")
          .addModifiers(Modifier.PUBLIC)
          .returns(RuntimeNames.INDARRAY)
          .addJavadoc("The mask of {@code $L}'s variable axis: FLOAT32 {@code (batch, T)}, 1 for a sample's real steps, 0 for\n"
              + "padded steps and padding rows$L.\n", f.name(), d.group(f.group()).size() > 1
              ? "; shared by " + d.group(f.group()).stream().map(x -> "{@code " + x.name() + "}")
                  .collect(java.util.stream.Collectors.joining(", ")) : "")
          .addStatement("return maskOf($L)", f.group())
          .build());
      t.addMethod(MethodSpec.methodBuilder(f.accessor() + "Lengths")
          .addModifiers(Modifier.PUBLIC)
          .returns(RuntimeNames.INDARRAY)
          .addJavadoc("The length of each row along {@code $L}'s variable axis: INT32 {@code (batch)}, 0 for padding rows.\n",
              f.name())
          .addStatement("return lengthsOf($L)", f.group())
          .build());
    }
    t.addMethod(MethodSpec.methodBuilder("newBatch")
        .addAnnotation(Override.class)
        .addModifiers(Modifier.PROTECTED)
        .returns(d.batch())
        .addStatement("return new $T(layout())", d.batch())
        .build());
    return t;
  }

  static String batchShape(FieldDescriptor f) {
    StringBuilder sb = new StringBuilder("(batch");
    for (int dim : f.shape()) {
      sb.append(", ").append(dim == dev.minibatch.Provides.VARIABLE ? "T" : String.valueOf(dim));
    }
    return sb.append(')').toString();
  }
}
