package dev.minibatch.text;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shape.Shape;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.stream.LongStream;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The tokenised documents of one pass as batches of the columns {@code tokens} (INT32, one variable
 * axis) and {@code doc} (INT64), for {@code ShardWriter.write}: row {@code r} of a batch is one
 * document, its ids padded with 0 to the batch's longest, with its length and mask. A batch closes at
 * {@link #MAX_ROWS} documents or when its padded ids would pass {@link #MAX_CELLS}, so a few long
 * documents among short ones do not make a huge padded array. It reads its iterator once; whoever
 * opened the iterator closes it.
 */
final class TokenBatches implements BatchProvider<NamedBatch> {
  static final int MAX_ROWS = 1024;
  /** Padded ids per batch at most (16 MB of INT32), unless one document alone holds more. */
  static final long MAX_CELLS = 4L << 20;

  static final BatchLayout LAYOUT = BatchLayout.of(List.of(
      DataDesc.of(TokenShards.TOKENS, MAX_ROWS, Shape.of(Shape.VARIABLE), DType.INT32, Role.DATA),
      DataDesc.of(TokenShards.DOC, MAX_ROWS, Shape.scalar(), DType.INT64, Role.DATA)), List.of());

  private final Iterator<int[]> documents;
  /** The documents' ids, one per document, in the same order. */
  private final PrimitiveIterator.OfLong documentIds;
  private boolean read;
  private long next;
  private long tokens;
  private int[] pending = new int[0];
  private boolean hasPending;

  /** The documents numbered 0, 1, 2, ...: their index in the source. */
  TokenBatches(Iterator<int[]> documents) {
    this(documents, LongStream.iterate(0, i -> i + 1).iterator());
  }

  /** The documents with their ids: {@code ids} gives one per document, in the same order. */
  TokenBatches(Iterator<int[]> documents, PrimitiveIterator.OfLong ids) {
    this.documents = documents;
    this.documentIds = ids;
  }

  /** Documents batched so far. */
  long documents() {
    return next;
  }

  /** Token ids batched so far. */
  long tokens() {
    return tokens;
  }

  @Override
  public int batchSize() {
    return MAX_ROWS;
  }

  @Override
  public List<DataDesc> provideData() {
    return LAYOUT.data();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return LAYOUT.label();
  }

  @Override
  public BatchIterator<NamedBatch> iterator() {
    if (read) {
      throw new IllegalStateException("the tokenised documents are read once");
    }
    read = true;
    return new BatchIterator<>() {
      @Override
      public boolean hasNext() {
        return hasPending || documents.hasNext();
      }

      @Override
      public NamedBatch next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return batch();
      }

      @Override
      public void close() {
        // The iterator of documents belongs to TokenShards.write, which closes it.
      }
    };
  }

  private NamedBatch batch() {
    int[][] rows = new int[MAX_ROWS][];
    int n = 0;
    int longest = 0;
    while (n < MAX_ROWS) {
      int[] doc;
      if (hasPending) {
        doc = pending;
        hasPending = false;
      } else if (documents.hasNext()) {
        doc = documents.next();
      } else {
        break;
      }
      int wide = Math.max(longest, doc.length);
      if (n > 0 && (long) (n + 1) * wide > MAX_CELLS) {
        pending = doc;
        hasPending = true;
        break;
      }
      rows[n++] = doc;
      longest = wide;
    }
    // At least one step, as the runtime pads every batch: an all-empty batch still has a [n, 1] array.
    int steps = Math.max(1, longest);
    int[] ids = new int[n * steps];
    float[] mask = new float[n * steps];
    int[] lengths = new int[n];
    long[] docs = new long[n];
    long[] indices = new long[n];
    long real = 0;
    for (int r = 0; r < n; r++) {
      int[] doc = rows[r];
      System.arraycopy(doc, 0, ids, r * steps, doc.length);
      Arrays.fill(mask, r * steps, r * steps + doc.length, 1f);
      lengths[r] = doc.length;
      if (!documentIds.hasNext()) {
        throw new IllegalArgumentException("document " + next + " has no id: the ids ran out before the documents");
      }
      docs[r] = documentIds.nextLong();
      indices[r] = next;
      next++;
      real += doc.length;
    }
    tokens += real;
    NamedBatch b = new NamedBatch(LAYOUT);
    b.reset(new INDArray[] {Nd4j.createFromArray(ids).reshape(n, steps), Nd4j.createFromArray(docs)}, n, 0, indices);
    b.resetSequences(new INDArray[] {Nd4j.createFromArray(mask).reshape(n, steps)},
        new INDArray[] {Nd4j.createFromArray(lengths)}, new int[] {0, -1}, -1, real, (long) n * steps);
    return b;
  }

  @Override
  public void close() {
    // Nothing held: see iterator().
  }
}
