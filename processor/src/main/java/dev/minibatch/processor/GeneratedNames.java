package dev.minibatch.processor;

import com.palantir.javapoet.ClassName;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;

/**
 * The one naming rule for generated types, public so the runtime and tools can find generated code:
 * in the sample's package, the sample's simple name — prefixed by its enclosing types' simple names
 * joined with {@code _} for a nested sample — followed by {@code Provider}, {@code Batch} or {@code
 * ProviderModule}. {@code Digit} → {@code DigitProvider}; {@code Mnist.Digit} → {@code
 * Mnist_DigitProvider}.
 */
final class GeneratedNames {
  private GeneratedNames() {}

  static ClassName provider(TypeElement sample) {
    return named(sample, "Provider");
  }

  static ClassName batch(TypeElement sample) {
    return named(sample, "Batch");
  }

  static ClassName daggerModule(TypeElement sample) {
    return named(sample, "ProviderModule");
  }

  static String packageName(TypeElement sample) {
    Element e = sample;
    while (!(e instanceof PackageElement)) {
      e = e.getEnclosingElement();
    }
    return ((PackageElement) e).getQualifiedName().toString();
  }

  private static ClassName named(TypeElement sample, String suffix) {
    StringBuilder prefix = new StringBuilder(sample.getSimpleName());
    for (Element e = sample.getEnclosingElement(); e.getKind() != ElementKind.PACKAGE; e = e.getEnclosingElement()) {
      prefix.insert(0, e.getSimpleName() + "_");
    }
    return ClassName.get(packageName(sample), prefix + suffix);
  }
}
