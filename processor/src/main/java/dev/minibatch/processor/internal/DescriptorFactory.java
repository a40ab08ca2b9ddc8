package dev.minibatch.processor.internal;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.SourceMember;
import dev.minibatch.processor.internal.model.SourceType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** Turns a validated {@code @DataProvider} type into its {@link SampleDescriptor}. */
final class DescriptorFactory {
  private final SampleValidator validator;
  private final Options options;

  DescriptorFactory(SampleValidator validator, Options options) {
    this.validator = validator;
    this.options = options;
  }

  /** The model of a type whose validation report was clean. */
  SampleDescriptor create(SourceType type) {
    AnnotationData dp = Objects.requireNonNull(type.dataProvider());
    List<Member> data = new ArrayList<>();
    List<Member> labels = new ArrayList<>();
    for (Member m : Members.of(type)) {
      (Annotations.booleanValue(m.annotation(), "label") ? labels : data).add(m);
    }
    List<Member> ordered = new ArrayList<>(data);
    ordered.addAll(labels);
    // Length groups: every variable member that follows no one owns one, in field order.
    List<Integer> groups = new ArrayList<>();
    java.util.Map<String, Integer> groupOf = new java.util.HashMap<>();
    java.util.Map<String, Member> roots = new java.util.HashMap<>();
    for (int i = 0; i < ordered.size(); i++) {
      Member m = ordered.get(i);
      if (variableAxis(m) >= 0 && Annotations.stringValue(m.annotation(), "sameLengthAs").isEmpty()) {
        groupOf.put(m.property(), groups.size());
        roots.put(m.property(), m);
        groups.add(i);
      }
    }
    List<FieldDescriptor> fields = new ArrayList<>();
    for (Member m : ordered) {
      String follows = Annotations.stringValue(m.annotation(), "sameLengthAs");
      String root = follows.isEmpty() ? m.property() : follows;
      Integer group = variableAxis(m) >= 0 ? groupOf.get(root) : null;
      fields.add(field(m, group == null ? -1 : group, group == null ? m : roots.get(root)));
    }
    return new SampleDescriptor(
        type,
        GeneratedNames.sample(type),
        type.kind() == SourceType.Kind.RECORD
            ? type.recordComponents().stream().map(SourceMember::name).toList() : List.of(),
        GeneratedNames.provider(type),
        GeneratedNames.batch(type),
        GeneratedNames.daggerModule(type),
        Annotations.intValue(dp, "batchSize"),
        fields,
        groups,
        options.daggerModule(),
        options.generatedAnnotation());
  }

  private int variableAxis(Member m) {
    int[] shape = Annotations.intArray(m.annotation(), "shape");
    for (int i = 0; i < shape.length; i++) {
      if (shape[i] == dev.minibatch.Provides.VARIABLE) {
        return i;
      }
    }
    return -1;
  }

  /** {@code m}'s descriptor; {@code root} declares the bound of its length group (or is {@code m}). */
  private FieldDescriptor field(Member m, int group, Member root) {
    AnnotationData a = m.annotation();
    FieldType ft = FieldType.of(m.type());
    DType dtype = DType.valueOf(Annotations.enumValue(a, "dtype"));
    dev.minibatch.SampleSchema.Encoding encoding = SampleValidator.encodingOf(a);
    if (dtype == DType.INFER) {
      // An image's bytes decode to pixels: UINT8 unless the sample asks for FLOAT32.
      dtype = encoding.image() ? DType.UINT8 : ft.inferredDType();
    }
    int[] shape = Annotations.intArray(a, "shape");
    String layout = Annotations.stringValue(a, "layout");
    if (layout.isEmpty()) {
      layout = DataDesc.defaultLayout(SampleValidator.shapeOf(shape).withBatch(1));
    }
    return new FieldDescriptor(
        m.property(),
        validator.providedName(m),
        Annotations.booleanValue(a, "label"),
        dtype,
        Arrays.stream(shape).boxed().toList(),
        layout,
        Objects.requireNonNull(ft.storage()),
        ft.primitive(),
        ft.rank(),
        Objects.requireNonNull(m.read()),
        Members.accessorOf(m.property()),
        Members.constantOf(m.property()),
        variableAxis(m),
        group,
        Annotations.intValue(root.annotation(), "maxLength"),
        dev.minibatch.TooLong.valueOf(Annotations.enumValue(root.annotation(), "tooLong")),
        Annotations.doubleValue(a, "stepPadding"),
        encoding);
  }
}
