package dev.minibatch.processor.internal;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.TypeSpec;
import javax.lang.model.element.Modifier;

/**
 * Writes {@code <Sample>ProviderModule} (opt-in, {@code -Aminibatch.daggerModule=true}): a Dagger
 * module that provides a fresh provider builder with the declared defaults, so a Dagger-wired
 * application injects {@code <Sample>Provider.Builder} and adds its samples.
 */
final class DaggerModuleWriter {
  private DaggerModuleWriter() {}

  static TypeSpec.Builder write(SampleDescriptor d) {
    return TypeSpec.classBuilder(d.daggerModule())
        .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
        .addAnnotation(AnnotationSpec.builder(RuntimeNames.DAGGER_MODULE).build())
        .addJavadoc("Provides {@link $T.Builder} to Dagger components. Include it with\n"
            + "{@code @Component(modules = $T.class)}.\n", d.provider(), d.daggerModule())
        .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build())
        .addMethod(MethodSpec.methodBuilder("builder")
            .addAnnotation(RuntimeNames.DAGGER_PROVIDES)
            .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
            .returns(d.provider().nestedClass("Builder"))
            .addJavadoc("A new builder with the defaults of {@link $T}; unscoped, so every injection gets its own.\n",
                d.sample())
            .addStatement("return $T.builder()", d.provider())
            .build());
  }
}
