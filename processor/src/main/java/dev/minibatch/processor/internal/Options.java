package dev.minibatch.processor.internal;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code -Aminibatch.*} options, typed and read in one place.
 *
 * <ul>
 *   <li>{@code minibatch.daggerModule=true|false} (default false): also generate, for every
 *       {@code @DataProvider} type, a Dagger {@code @Module} ({@code <Sample>ProviderModule})
 *       providing the generated builder. The application then needs Dagger on its own classpath.
 *   <li>{@code minibatch.generatedAnnotation=true|false} (default true): mark generated types with
 *       {@code @javax.annotation.processing.Generated}.
 * </ul>
 */
record Options(boolean daggerModule, boolean generatedAnnotation) {
  static final String DAGGER_MODULE = "minibatch.daggerModule";
  static final String GENERATED_ANNOTATION = "minibatch.generatedAnnotation";

  static final Set<String> NAMES = Set.of(DAGGER_MODULE, GENERATED_ANNOTATION);

  /** Parses the options; a bad value is reported by {@code onError} and treated as the default. */
  static Options parse(Map<String, String> raw, java.util.function.BiConsumer<String, String> onError) {
    return new Options(
        bool(raw, DAGGER_MODULE, false, onError),
        bool(raw, GENERATED_ANNOTATION, true, onError));
  }

  private static boolean bool(Map<String, String> raw, String key, boolean dflt,
      java.util.function.BiConsumer<String, String> onError) {
    String v = raw.get(key);
    if (v == null) {
      return dflt;
    }
    switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "":
      case "true":
      case "enabled":
        return true;
      case "false":
      case "disabled":
        return false;
      default:
        onError.accept(key, v);
        return dflt;
    }
  }
}
