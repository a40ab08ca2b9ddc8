package dev.minibatch.processor.internal.model;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** A type declared in the sources or on the class path, as the core needs it. */
public interface SourceType {
  /** What kind of type it is. */
  enum Kind {
    /** A class (a Kotlin {@code class}, {@code data class} or {@code object}). */
    CLASS,
    /** A Java record. */
    RECORD,
    /** An interface. */
    INTERFACE,
    /** An enum. */
    ENUM,
    /** An annotation type. */
    ANNOTATION
  }

  /** The qualified name, e.g. {@code demo.Mnist.Digit}. */
  String qualifiedName();

  /** The simple name, e.g. {@code Digit}. */
  String simpleName();

  /** The package, e.g. {@code demo}; empty for the unnamed package. */
  String packageName();

  /** The kind. */
  Kind kind();

  /** True for an abstract class (an interface counts by its kind). */
  boolean isAbstract();

  /**
   * True for a class declared in Kotlin: javac sees it in kapt's stub, which keeps the class's
   * {@code @kotlin.Metadata}; KSP sees a Kotlin declaration.
   */
  boolean isKotlin();

  /** True when declared private. */
  boolean isPrivate();

  /**
   * True when code outside cannot create or read it without more context: a non-static inner class
   * (a Kotlin {@code inner class}), a local or an anonymous class.
   */
  boolean isInnerOrLocal();

  /** The type this one is nested in; null for a top-level type. */
  @Nullable SourceType enclosingType();

  /** The {@code @DataProvider} annotation on it; null when it has none. */
  @Nullable AnnotationData dataProvider();

  /** A record's components in declaration order; empty for other kinds. */
  List<SourceMember> recordComponents();

  /**
   * Its own fields and methods, annotated or not, in declaration order (constructors and nested
   * types left out); a Kotlin property appears as its backing field (when it has one) followed by
   * its getter.
   */
  List<SourceMember> members();

  /** The type itself. */
  Position position();
}
