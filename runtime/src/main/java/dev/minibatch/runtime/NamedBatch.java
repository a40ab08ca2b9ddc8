package dev.minibatch.runtime;

/**
 * A batch whose arrays are reached by name or position: what {@link ArrayDataProvider} and the
 * other untyped providers deliver. Generated providers deliver typed batches with one accessor per
 * field instead.
 */
public final class NamedBatch extends AbstractBatch<NamedBatch> {
  /** An empty batch of {@code layout}; providers fill it. */
  public NamedBatch(BatchLayout layout) {
    super(layout);
  }

  @Override
  protected NamedBatch newBatch() {
    return new NamedBatch(layout());
  }
}
