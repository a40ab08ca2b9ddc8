package dev.minibatch.text;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The engine of {@link TokenBudget} for one pass: holds a window of documents, and when it is full
 * (or the pass ends) sorts it by length, cuts it into batches under the budget and shuffles their
 * order. Documents are held by reference, not copied: the caller hands over arrays it no longer
 * writes.
 */
final class BudgetBatcher {
  private final TokenBudget budget;
  private final SplittableRandom random;
  private final int[][] ids;
  private final int[] lengths;
  private final long[] documents;
  private final ArrayDeque<BudgetBatch> ready = new ArrayDeque<>();
  private int held;
  private long added;

  /** A batcher of one pass; {@code random} shuffles each window's batches, null keeps them sorted. */
  BudgetBatcher(TokenBudget budget, SplittableRandom random) {
    this.budget = budget;
    this.random = random;
    int w = budget.window();
    this.ids = new int[w][];
    this.lengths = new int[w];
    this.documents = new long[w];
  }

  /**
   * Adds a document: its first {@code length} ids of {@code tokens}, reported as {@code document}.
   *
   * @throws IllegalArgumentException if it is longer than the budget and the budget refuses those
   */
  void add(int[] tokens, int length, long document) {
    int b = budget.tokens();
    if (length > b) {
      if (!budget.truncateOverlong()) {
        throw new IllegalArgumentException("document " + document + " (the " + Packer.ordinal(added + 1)
            + " in the pass) has " + length + " tokens, more than the budget of " + b
            + " tokens a batch: Overlong.TRUNCATE keeps its first " + b);
      }
      length = b;
    }
    ids[held] = tokens;
    lengths[held] = length;
    documents[held] = document;
    held++;
    added++;
    if (held == ids.length) {
      cut();
    }
  }

  /** The pass is done: the documents held, a last and shorter window, are cut into batches. */
  void finish() {
    if (held > 0) {
      cut();
    }
  }

  boolean hasNext() {
    return !ready.isEmpty();
  }

  BudgetBatch next() {
    return ready.removeFirst();
  }

  /** Sorts the window, cuts it greedily, shuffles the batches' order and builds them. */
  private void cut() {
    int n = held;
    // Length in the high half, position in the low: one primitive sort, stable by position.
    long[] order = new long[n];
    for (int i = 0; i < n; i++) {
      order[i] = (long) lengths[i] << 32 | i;
    }
    Arrays.sort(order);
    int b = budget.tokens();
    int[] starts = new int[n + 1];
    int batches = 0;
    int rows = 0;
    int widest = 0;
    for (int k = 0; k < n; k++) {
      // An empty document takes one position: a row has at least one.
      int wide = Math.max(widest, Math.max(1, (int) (order[k] >>> 32)));
      if (rows > 0 && (long) (rows + 1) * wide > b) {
        starts[++batches] = k;
        rows = 0;
        wide = Math.max(1, (int) (order[k] >>> 32));
      }
      rows++;
      widest = wide;
    }
    starts[++batches] = n;
    int[] sequence = new int[batches];
    for (int i = 0; i < batches; i++) {
      sequence[i] = i;
    }
    if (random != null) {
      // Fisher–Yates from the last position down, the draws of the pass's one generator in order.
      for (int i = batches - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int t = sequence[i];
        sequence[i] = sequence[j];
        sequence[j] = t;
      }
    }
    for (int s : sequence) {
      ready.addLast(batch(order, starts[s], starts[s + 1]));
    }
    Arrays.fill(ids, 0, n, null);
    held = 0;
  }

  private BudgetBatch batch(long[] order, int from, int to) {
    int rows = to - from;
    int width = Math.max(1, (int) (order[to - 1] >>> 32));
    int[] batchIds = new int[rows * width];
    int[] mask = new int[rows * width];
    int[] batchLengths = new int[rows];
    long[] batchDocuments = new long[rows];
    int padding = budget.padding();
    if (padding != 0) {
      Arrays.fill(batchIds, padding);
    }
    long real = 0;
    for (int r = 0; r < rows; r++) {
      int i = (int) order[from + r];
      int length = lengths[i];
      System.arraycopy(ids[i], 0, batchIds, r * width, length);
      Arrays.fill(mask, r * width, r * width + length, 1);
      batchLengths[r] = length;
      batchDocuments[r] = documents[i];
      real += length;
    }
    return new BudgetBatch(rows, width, batchIds, mask, batchLengths, batchDocuments, real);
  }
}
