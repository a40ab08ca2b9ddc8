package dev.minibatch.processor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.annotation.processing.Messager;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;
import org.jspecify.annotations.Nullable;

/**
 * The problems found in one {@code @DataProvider} type, in the order they were found. Each item
 * points at the most precise place javac can underline: an element, the annotation on it, or one
 * value of that annotation. Immutable once built; {@link #isClean()} decides whether the type gets
 * generated code.
 */
final class ValidationReport {
  /** One problem. */
  record Item(
      Diagnostic.Kind kind,
      Message message,
      String text,
      Element element,
      @Nullable AnnotationMirror annotation,
      @Nullable AnnotationValue value) {}

  private final Element subject;
  private final List<Item> items;

  private ValidationReport(Element subject, List<Item> items) {
    this.subject = subject;
    this.items = Collections.unmodifiableList(new ArrayList<>(items));
  }

  /** The type the report is about. */
  Element subject() {
    return subject;
  }

  /** The problems, in order. */
  List<Item> items() {
    return items;
  }

  /** True if no item is an error: the type may be generated. */
  boolean isClean() {
    return items.stream().noneMatch(i -> i.kind() == Diagnostic.Kind.ERROR);
  }

  /** Prints every item. */
  void printTo(Messager messager) {
    for (Item i : items) {
      if (i.value() != null && i.annotation() != null) {
        messager.printMessage(i.kind(), i.text(), i.element(), i.annotation(), i.value());
      } else if (i.annotation() != null) {
        messager.printMessage(i.kind(), i.text(), i.element(), i.annotation());
      } else {
        messager.printMessage(i.kind(), i.text(), i.element());
      }
    }
  }

  static Builder about(Element subject) {
    return new Builder(subject);
  }

  /** Collects items. */
  static final class Builder {
    private final Element subject;
    private final List<Item> items = new ArrayList<>();

    private Builder(Element subject) {
      this.subject = subject;
    }

    /** An error on an element. */
    Builder error(Element on, Message message, Object... args) {
      return add(on, null, null, message, args);
    }

    /** An error on an annotation, and on one of its values when {@code value} is not null. */
    Builder error(Element on, AnnotationMirror annotation, @Nullable AnnotationValue value,
        Message message, Object... args) {
      return add(on, annotation, value, message, args);
    }

    private Builder add(Element on, @Nullable AnnotationMirror annotation, @Nullable AnnotationValue value,
        Message message, Object... args) {
      items.add(new Item(Diagnostic.Kind.ERROR, message, message.format(args), on, annotation, value));
      return this;
    }

    boolean hasErrors() {
      return items.stream().anyMatch(i -> i.kind() == Diagnostic.Kind.ERROR);
    }

    ValidationReport build() {
      return new ValidationReport(subject, items);
    }
  }
}
