package dev.minibatch.processor;

import com.google.auto.service.AutoService;
import dev.minibatch.processor.internal.DataProviderStep;
import dev.minibatch.processor.internal.model.AnnotationData;
import java.util.HashSet;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

/**
 * The entry point javac and kapt discover (through {@code META-INF/services}, written by
 * AutoService) or are given explicitly ({@code -processorpath}, Maven's {@code
 * annotationProcessorPaths}). It only adapts javac's model to the core's ({@link JavacRound},
 * {@link FilerOutput}) and runs the core's {@link DataProviderStep}; the work is there.
 *
 * <p>Isolating for Gradle: every generated file has exactly one originating element, the sample
 * type it is generated from ({@code META-INF/gradle/incremental.annotation.processors}).
 */
@AutoService(Processor.class)
public final class MinibatchProcessor extends AbstractProcessor {
  private DataProviderStep step;

  /** Called by the compiler. */
  public MinibatchProcessor() {}

  @Override
  public synchronized void init(ProcessingEnvironment env) {
    super.init(env);
    step = new DataProviderStep(env.getOptions(), new FilerOutput(env.getFiler(), env.getMessager(),
        FilerOutput.kaptKotlinDirectory(env.getOptions())));
  }

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return Set.of(AnnotationData.DATA_PROVIDER);
  }

  @Override
  public Set<String> getSupportedOptions() {
    Set<String> options = new HashSet<>(DataProviderStep.OPTIONS);
    options.add(FilerOutput.KAPT_KOTLIN_GENERATED);
    return options;
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    step.process(new JavacRound(processingEnv, round));
    return false;
  }
}
