package dev.minibatch.processor;

import com.palantir.javapoet.ClassName;
import java.util.List;
import javax.lang.model.element.TypeElement;

/**
 * The validated model of one {@code @DataProvider} type: everything the writers need, nothing they
 * have to check. Built only for types whose validation report is clean.
 *
 * @param element the sample type (the originating element of every generated file)
 * @param sample the sample type's name
 * @param provider the generated provider's name
 * @param batch the generated batch's name
 * @param daggerModule the generated Dagger module's name
 * @param batchSize the annotation's default batch size (0 = set on the builder)
 * @param fields data members first, then labels, each in declaration order
 * @param generateDaggerModule whether to write the Dagger module
 * @param generatedAnnotation whether to mark generated types {@code @Generated}
 */
record SampleDescriptor(
    TypeElement element,
    ClassName sample,
    ClassName provider,
    ClassName batch,
    ClassName daggerModule,
    int batchSize,
    List<FieldDescriptor> fields,
    boolean generateDaggerModule,
    boolean generatedAnnotation) {

  SampleDescriptor {
    fields = List.copyOf(fields);
  }

  List<FieldDescriptor> data() {
    return fields.stream().filter(f -> !f.label()).toList();
  }

  List<FieldDescriptor> labels() {
    return fields.stream().filter(FieldDescriptor::label).toList();
  }
}
