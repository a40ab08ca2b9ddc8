package dev.minibatch.text;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Objects;

/**
 * Packs a stream of documents into rows of the context length, by the rules of its {@link Packing}
 * (see there): {@link #add} the documents in order, take the rows with {@link #next} whenever it
 * has one, and call {@link #finish} after the last document to have the open rows handed out too.
 *
 * <pre>{@code
 * Packer packer = Packing.builder(2048).bestFit(64).build().packer();
 * PackedRow row = new PackedRow(2048);
 * for (int[] doc : documents) {
 *   packer.add(doc);
 *   while (packer.next(row)) { train(row); }
 * }
 * packer.finish();
 * while (packer.next(row)) { train(row); }
 * }</pre>
 *
 * <p>The rows depend on the documents and the settings only. Rows being packed are held in buffers
 * that are used again once handed out, so packing allocates nothing per row or document once it has
 * as many buffers as it ever holds at once. Not thread-safe: one packer per thread.
 */
public final class Packer {
  private final Packing settings;
  private final int length;
  /** The open rows, in the order they were opened: one at most when concatenating. */
  private final ArrayList<Row> open = new ArrayList<>();
  /** Rows complete and not yet handed out, in the order they completed. */
  private final ArrayDeque<Row> ready = new ArrayDeque<>();
  private final ArrayDeque<Row> spare = new ArrayDeque<>();
  /** The document being added, one object used again for every document. */
  private final Doc doc;
  private long added;
  private boolean finished;

  Packer(Packing settings) {
    this.settings = settings;
    this.length = settings.contextLength();
    this.doc = new Doc(settings.separator());
  }

  /**
   * Adds the next document, its index in the stream being the number of documents added before it.
   *
   * @throws IllegalArgumentException if it is longer than the context length and the packing refuses
   *     such documents (naming the document, its length and the context length)
   * @throws IllegalStateException after {@link #finish}
   */
  public void add(int[] ids) {
    add(ids, 0, ids.length, added);
  }

  /**
   * Adds the next document: {@code ids[offset, offset + count)}, reported as document {@code
   * document} by {@link PackedRow#document}. The ids are copied: the array may be used again.
   *
   * @throws IllegalArgumentException if it is longer than the context length and the packing refuses
   *     such documents (naming the document, its length and the context length)
   * @throws IndexOutOfBoundsException if the range is not inside {@code ids}
   * @throws IllegalStateException after {@link #finish}
   */
  public void add(int[] ids, int offset, int count, long document) {
    Objects.checkFromIndexSize(offset, count, ids.length);
    if (finished) {
      throw new IllegalStateException("the packer was finished: it takes no more documents");
    }
    Doc doc = this.doc.reset(ids, offset, count, document);
    int m = doc.length;
    if (settings.bestFit() && m > length && !settings.splitOverlong()) {
      // Refused before it counts: a caller that goes on has the stream as if it had not been added.
      throw new IllegalArgumentException("document " + document + " (the " + ordinal(added + 1) + " in the stream) has "
          + m + " tokens" + (settings.separator() >= 0 ? " with its separator" : "") + ", more than the context length "
          + length + ": best fit packs whole documents; Overlong.SPLIT cuts it into rows of " + length);
    }
    added++;
    if (m == 0) {
      return; // an empty document without a separator has no token to place
    }
    if (!settings.bestFit()) {
      concatenate(doc);
      return;
    }
    int done = 0;
    // An overlong document's leading pieces fill rows of their own, handed out now; its tail is placed
    // as a document.
    while (m - done > length) {
      Row piece = take();
      piece.append(doc, done, length, settings.shiftLabels());
      ready.add(piece);
      done += length;
    }
    bestFit(doc, done, m - done);
  }

  /** "1st", "2nd", "11th", … for messages naming a document by its place in a stream. */
  static String ordinal(long n) {
    long mod100 = n % 100;
    String suffix = mod100 >= 11 && mod100 <= 13 ? "th"
        : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    return n + suffix;
  }

  private void concatenate(Doc doc) {
    int done = 0;
    while (done < doc.length) {
      if (open.isEmpty()) {
        open.add(take());
      }
      Row row = open.get(0);
      int n = Math.min(length - row.used, doc.length - done);
      row.append(doc, done, n, settings.shiftLabels());
      done += n;
      if (row.used == length) {
        ready.add(open.remove(0));
      }
    }
  }

  private void bestFit(Doc doc, int from, int n) {
    Row best = null;
    for (int i = 0; i < open.size(); i++) {
      Row row = open.get(i);
      int free = length - row.used;
      // Strictly less: among rows with the same free space the earliest opened wins.
      if (free >= n && (best == null || free < length - best.used)) {
        best = row;
      }
    }
    if (best == null) {
      best = take();
      open.add(best);
    }
    best.append(doc, from, n, settings.shiftLabels());
    if (best.used == length) {
      open.remove(best);
      ready.add(best);
    } else if (open.size() > settings.window()) {
      ready.add(open.remove(0));
    }
  }

  /**
   * Ends the stream: the open rows are complete, in the order they were opened, and {@link #add} is
   * refused from now on. Calling it again does nothing.
   */
  public void finish() {
    finished = true;
    ready.addAll(open);
    open.clear();
  }

  /**
   * Starts a new stream on this packer, keeping its row buffers: what {@link PackedBatches} does at
   * every unit. The stream before must be finished and all its rows taken.
   */
  void restart() {
    if (!finished || !ready.isEmpty()) {
      throw new IllegalStateException("restart() needs a finished packer whose rows were all taken: " + this);
    }
    finished = false;
    added = 0;
  }

  /**
   * Copies the next complete row into {@code row}, if there is one.
   *
   * @return false if no row is complete yet (add more documents, or {@link #finish})
   * @throws IllegalArgumentException if {@code row} has another length than the context length
   */
  public boolean next(PackedRow row) {
    if (row.length() != length) {
      throw new IllegalArgumentException("a row of " + row.length() + " positions cannot hold a row packed to the context"
          + " length " + length + ": make it with new PackedRow(" + length + ")");
    }
    Row r = ready.poll();
    if (r == null) {
      return false;
    }
    row.fill(r.ids, r.labels, r.used, r.segments, r.ends, r.documents, r.offsets, settings.padding(),
        settings.shiftLabels());
    r.used = 0;
    r.segments = 0;
    spare.push(r);
    return true;
  }

  /** Whether {@link #next} has a row to give. */
  public boolean hasNext() {
    return !ready.isEmpty();
  }

  /** The documents added so far. */
  public long documents() {
    return added;
  }

  @Override
  public String toString() {
    return "Packer[" + settings + ", " + added + " documents, " + open.size() + " open rows, " + ready.size()
        + " ready]";
  }

  private Row take() {
    Row r = spare.poll();
    return r != null ? r : new Row(length, settings.shiftLabels());
  }

  /** A document as the packer sees it: its ids, then its separator if there is one. */
  private static final class Doc {
    final int separator;
    int[] ids = new int[0];
    int offset;
    int count;
    int length;
    long index;

    Doc(int separator) {
      this.separator = separator;
    }

    Doc reset(int[] ids, int offset, int count, long index) {
      this.ids = ids;
      this.offset = offset;
      this.count = count;
      this.length = count + (separator >= 0 ? 1 : 0);
      this.index = index;
      return this;
    }
  }

  /** A row being packed: its ids and labels so far, and where each segment ends. */
  private static final class Row {
    final int[] ids;
    final int[] labels;
    final int[] ends;
    final long[] documents;
    final int[] offsets;
    int used;
    int segments;

    Row(int length, boolean withLabels) {
      ids = new int[length];
      labels = withLabels ? new int[length] : ids;
      ends = new int[length];
      documents = new long[length];
      offsets = new int[length];
    }

    /** Appends tokens {@code [from, from + n)} of {@code doc} (its separator last) as one segment. */
    void append(Doc doc, int from, int n, boolean withLabels) {
      int to = from + n;
      int realTo = Math.min(to, doc.count);
      if (realTo > from) {
        System.arraycopy(doc.ids, doc.offset + from, ids, used, realTo - from);
      }
      if (to > doc.count) {
        ids[used + n - 1] = doc.separator;
      }
      if (withLabels) {
        // The label of token j is token j + 1 of the same document, wherever that token is placed.
        for (int j = from; j < to; j++) {
          int next = j + 1;
          labels[used + j - from] = next >= doc.length ? Packing.IGNORE
              : next < doc.count ? doc.ids[doc.offset + next] : doc.separator;
        }
      }
      used += n;
      ends[segments] = used;
      documents[segments] = doc.index;
      offsets[segments] = from;
      segments++;
    }
  }
}
