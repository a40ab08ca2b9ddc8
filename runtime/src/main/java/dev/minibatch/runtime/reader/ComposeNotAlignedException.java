package dev.minibatch.runtime.reader;

/**
 * {@link Readers#compose} with the alignment check found readers of different lengths (Paddle's
 * {@code ComposeNotAligned}). Thrown after the aligned items, when the first reader runs out
 * while another still has items.
 */
public final class ComposeNotAlignedException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** The readers disagree after {@code aligned} items. */
  public ComposeNotAlignedException(long aligned, String detail) {
    super("composed readers are not aligned: " + detail + " after " + aligned + " items");
  }
}
