package dev.minibatch.processor;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;

/** Turns a validated {@code @DataProvider} type into its {@link SampleDescriptor}. */
final class DescriptorFactory {
  private final Elements elements;
  private final Members members;
  private final SampleValidator validator;
  private final Options options;

  DescriptorFactory(Elements elements, Members members, SampleValidator validator, Options options) {
    this.elements = elements;
    this.members = members;
    this.validator = validator;
    this.options = options;
  }

  /** The model of a type whose validation report was clean. */
  SampleDescriptor create(TypeElement type) {
    AnnotationMirror dp = Annotations.find(type, Annotations.DATA_PROVIDER).orElseThrow();
    List<FieldDescriptor> data = new ArrayList<>();
    List<FieldDescriptor> labels = new ArrayList<>();
    for (Member m : members.of(type)) {
      FieldDescriptor f = field(m);
      (f.label() ? labels : data).add(f);
    }
    List<FieldDescriptor> fields = new ArrayList<>(data);
    fields.addAll(labels);
    return new SampleDescriptor(
        type,
        com.palantir.javapoet.ClassName.get(type),
        GeneratedNames.provider(type),
        GeneratedNames.batch(type),
        GeneratedNames.daggerModule(type),
        Annotations.intValue(elements, dp, "batchSize"),
        fields,
        options.daggerModule(),
        options.generatedAnnotation());
  }

  private FieldDescriptor field(Member m) {
    AnnotationMirror a = m.annotation();
    FieldType ft = FieldType.of(m.type());
    DType dtype = DType.valueOf(Annotations.enumValue(elements, a, "dtype"));
    if (dtype == DType.INFER) {
      dtype = ft.inferredDType();
    }
    int[] shape = Annotations.intArray(elements, a, "shape");
    String layout = Annotations.stringValue(elements, a, "layout");
    if (layout.isEmpty()) {
      layout = DataDesc.defaultLayout(SampleValidator.shapeOf(shape).withBatch(1));
    }
    return new FieldDescriptor(
        m.property(),
        validator.providedName(m),
        Annotations.booleanValue(elements, a, "label"),
        dtype,
        Arrays.stream(shape).boxed().toList(),
        layout,
        Objects.requireNonNull(ft.storage()),
        ft.primitive(),
        ft.rank(),
        Objects.requireNonNull(m.read()),
        Members.accessorOf(m.property()),
        Members.constantOf(m.property()));
  }
}
