package dev.minibatch.processor.internal.model;

import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** What the core sees of one processing round. */
public interface Round {
  /** The types annotated {@code @DataProvider} in this round's sources. */
  List<SourceType> dataProviderTypes();

  /** The qualified names of every type, nested ones included, declared in this round's sources. */
  Set<String> declaredTypes();

  /** The type named {@code qualifiedName} in the sources or on the class path; null if none. */
  @Nullable SourceType type(String qualifiedName);

  /** True when {@code qualifiedName} names a type in the sources or on the class path. */
  default boolean exists(String qualifiedName) {
    return type(qualifiedName) != null;
  }

  /** True for the last round: nothing generated later can resolve a type that is still missing. */
  boolean last();
}
