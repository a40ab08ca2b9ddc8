package dev.minibatch.processor.internal;

import com.palantir.javapoet.ClassName;
import dev.minibatch.processor.internal.model.SourceType;
import java.util.List;

/**
 * The validated model of one {@code @DataProvider} type: everything the writers need, nothing they
 * have to check. Built only for types whose validation report is clean.
 *
 * @param element the sample type (the originating element of every generated file)
 * @param sample the sample type's name
 * @param recordComponents a record sample's component names in declaration order (the canonical
 *     constructor's parameters); empty when the sample is not a record
 * @param provider the generated provider's name
 * @param batch the generated batch's name
 * @param daggerModule the generated Dagger module's name
 * @param batchSize the annotation's default batch size (0 = set on the builder)
 * @param fields data members first, then labels, each in declaration order
 * @param groups the length groups: per group, the position in {@code fields} of the member that
 *     owns the length (a variable member without {@code sameLengthAs}), in field order
 * @param generateDaggerModule whether to write the Dagger module
 * @param generatedAnnotation whether to mark generated types {@code @Generated}
 */
record SampleDescriptor(
    SourceType element,
    ClassName sample,
    List<String> recordComponents,
    ClassName provider,
    ClassName batch,
    ClassName daggerModule,
    int batchSize,
    List<FieldDescriptor> fields,
    List<Integer> groups,
    boolean generateDaggerModule,
    boolean generatedAnnotation) {

  SampleDescriptor {
    recordComponents = List.copyOf(recordComponents);
    fields = List.copyOf(fields);
    groups = List.copyOf(groups);
  }

  /** True if some member has a variable axis. */
  boolean variable() {
    return !groups.isEmpty();
  }

  /** The members of length group {@code g}, root first. */
  List<FieldDescriptor> group(int g) {
    FieldDescriptor root = fields.get(groups.get(g));
    List<FieldDescriptor> out = new java.util.ArrayList<>(List.of(root));
    fields.stream().filter(f -> f.group() == g && f != root).forEach(out::add);
    return out;
  }

  List<FieldDescriptor> data() {
    return fields.stream().filter(f -> !f.label()).toList();
  }

  List<FieldDescriptor> labels() {
    return fields.stream().filter(FieldDescriptor::label).toList();
  }
}
