package dev.minibatch.processor.internal;

import com.palantir.javapoet.ClassName;
import dev.minibatch.processor.internal.model.SourceType;
import java.util.ArrayList;
import java.util.List;

/**
 * The one naming rule for generated types, public so the runtime and tools can find generated code:
 * in the sample's package, the sample's simple name — prefixed by its enclosing types' simple names
 * joined with {@code _} for a nested sample — followed by {@code Provider}, {@code Batch} or {@code
 * ProviderModule}. {@code Digit} → {@code DigitProvider}; {@code Mnist.Digit} → {@code
 * Mnist_DigitProvider}.
 */
final class GeneratedNames {
  private GeneratedNames() {}

  static ClassName provider(SourceType sample) {
    return named(sample, "Provider");
  }

  static ClassName batch(SourceType sample) {
    return named(sample, "Batch");
  }

  static ClassName daggerModule(SourceType sample) {
    return named(sample, "ProviderModule");
  }

  /** The sample's own name: its package, then its simple names from the outermost type in. */
  static ClassName sample(SourceType sample) {
    List<String> names = new ArrayList<>();
    for (SourceType e = sample; e != null; e = e.enclosingType()) {
      names.add(0, e.simpleName());
    }
    return ClassName.get(sample.packageName(), names.get(0),
        names.subList(1, names.size()).toArray(new String[0]));
  }

  private static ClassName named(SourceType sample, String suffix) {
    StringBuilder prefix = new StringBuilder(sample.simpleName());
    for (SourceType e = sample.enclosingType(); e != null; e = e.enclosingType()) {
      prefix.insert(0, e.simpleName() + "_");
    }
    return ClassName.get(sample.packageName(), prefix + suffix);
  }
}
