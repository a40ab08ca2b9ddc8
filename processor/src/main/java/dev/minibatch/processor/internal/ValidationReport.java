package dev.minibatch.processor.internal;

import dev.minibatch.processor.internal.model.Output;
import dev.minibatch.processor.internal.model.Position;
import dev.minibatch.processor.internal.model.SourceType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The problems found in one {@code @DataProvider} type, in the order they were found. Each item
 * points at the most precise place the front end can underline: the annotation on the type or
 * member, or one value of that annotation. Immutable once built; {@link #isClean()} decides whether
 * the type gets generated code.
 */
final class ValidationReport {
  /** One problem: every problem is an error. */
  record Item(Message message, String text, Position at) {}

  private final SourceType subject;
  private final List<Item> items;

  private ValidationReport(SourceType subject, List<Item> items) {
    this.subject = subject;
    this.items = Collections.unmodifiableList(new ArrayList<>(items));
  }

  /** The type the report is about. */
  SourceType subject() {
    return subject;
  }

  /** The problems, in order. */
  List<Item> items() {
    return items;
  }

  /** True if there is no problem: the type may be generated. */
  boolean isClean() {
    return items.isEmpty();
  }

  /** Reports every item. */
  void printTo(Output output) {
    for (Item i : items) {
      output.error(i.at(), i.text());
    }
  }

  static Builder about(SourceType subject) {
    return new Builder(subject);
  }

  /** Collects items. */
  static final class Builder {
    private final SourceType subject;
    private final List<Item> items = new ArrayList<>();

    private Builder(SourceType subject) {
      this.subject = subject;
    }

    /** An error at {@code at}: an annotation, or one of its values. */
    Builder error(Position at, Message message, Object... args) {
      items.add(new Item(message, message.format(args), at));
      return this;
    }

    boolean hasErrors() {
      return !items.isEmpty();
    }

    ValidationReport build() {
      return new ValidationReport(subject, items);
    }
  }
}
