package dev.minibatch.text;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import dev.minibatch.shards.ShardProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * The packed rows of a provider's epochs of documents (a token shard set's, or any provider with
 * a variable-length INT32 member) in global batches of {@code R} rows, dealt to trainers, resumable
 * mid-epoch, also under another trainer count; made by {@link Packing#batches(ShardProvider, int,
 * int, int)} or {@link Packing#batches(dev.minibatch.runtime.BatchProvider, String, int, int, int)}. Each {@link #iterator()} is the next epoch (or the
 * rest of a restored one).
 *
 * <p>The rule, per epoch. Unit {@code u} is global batch {@code u} of the documents' provider (its
 * batch of documents in its global order, the same for every trainer count); each unit is packed by
 * the packing's rules with a packer of its own, finished at the unit's end, so its rows depend on its
 * documents only. The epoch's rows are unit 0's, then unit 1's, …, row {@code g} counted from 0.
 * Global batch {@code j} is rows {@code [j·R, (j+1)·R)} (the last one may be short). Trainer {@code p}
 * of {@code k} gets global batches {@code s + p, s + p + k, …}, {@code s} being 0 or the restored
 * position.
 *
 * <p>The state after a trainer took {@code q} batches names the position {@code b = s + q·k} (the
 * same on every trainer that took {@code q}) as a place in the documents: the unit {@code u} that
 * holds row {@code b·R} and its row {@code r} within the unit. Since a unit's rows are a function
 * of its documents, the packer's state there (its open rows, the pieces of documents split across
 * rows) is rebuilt by packing unit {@code u} again and dropping its first {@code r} rows, so the
 * state is small and exact. In {@link IterationState} terms: {@code epoch}, {@code position = b},
 * {@code carried = [r]}, a fingerprint of the packing and {@code R} (not the trainer count) and one
 * part, the documents' provider's state before unit {@code u} (its position is {@code u}). Once row
 * {@code b·R} lies past the epoch's end the state is the next epoch's start.
 *
 * <p>Every trainer reads every document (as elastic shards without partitions read every file) and
 * packs every unit; it keeps its own batches. Not thread-safe: save and restore between batches, on
 * the thread that iterates.
 */
public final class PackedBatches implements Iterable<PackedBatch>, Resumable {
  /** The stage packing reports in the iteration's {@link PipelineStats}, after the documents' stages. */
  public static final String STAGE = "pack";

  private final Packing packing;
  private final TokenDocuments documents;
  private final int rows;
  private final int trainers;
  private final int rank;
  private final String fingerprint;
  /** A restored state not yet started. */
  private @Nullable IterationState pending;
  /** The epoch in progress, or the last one until another starts. */
  private @Nullable Epoch current;

  PackedBatches(Packing packing, TokenDocuments documents, int rows, int trainers, int rank) {
    this.packing = packing;
    this.documents = documents;
    this.rows = rows;
    this.trainers = trainers;
    this.rank = rank;
    this.fingerprint = "PackedBatches[" + packing + ", " + rows + " rows]";
  }

  /** Rows per global batch: {@code R}. */
  public int rowsPerBatch() {
    return rows;
  }

  /**
   * The next epoch's batches for this trainer, or the rest of the epoch a restored state names. An
   * iteration in progress ends (the next one is the documents' next epoch, as a provider's next
   * iteration is). The iterator is {@link AutoCloseable}: closing it mid-epoch releases the
   * documents' iteration.
   */
  @Override
  public PipelineIterator<PackedBatch> iterator() {
    if (current != null) {
      current.release();
    }
    IterationState from = pending;
    pending = null;
    current = new Epoch(from);
    return current;
  }

  /**
   * The state after the batches this trainer took: see the class comment. Saved by every trainer
   * after the same number of batches it is the same state, which restores under any trainer count.
   */
  @Override
  public IterationState saveState() {
    if (pending != null) {
      return pending;
    }
    Epoch e = current;
    if (e == null) {
      IterationState docs = documents.saveState();
      return new IterationState(docs.seed(), docs.epoch(), 0, new int[] {0}, fingerprint, List.of(docs));
    }
    return e.state();
  }

  /**
   * Continues from {@code state} at the next {@link #iterator()}, with this trainer's share of the
   * rest of its epoch; an iteration in progress ends.
   *
   * @throws IllegalArgumentException if the state was saved by other packed batches (another packing
   *     or {@code R}), or the documents' provider refuses its part (other documents or settings)
   */
  @Override
  public void restoreState(IterationState state) {
    if (!state.settings().equals(fingerprint) || state.parts().size() != 1 || state.carried().length != 1) {
      throw new IllegalArgumentException("not a state of " + fingerprint + ": it was saved by '" + state.settings()
          + "' with " + state.parts().size() + " parts and " + state.carried().length + " carried values (expected 1"
          + " part, the documents' state, and 1 value, the row within the unit)");
    }
    if (current != null) {
      current.release();
      current = null;
    }
    documents.restoreState(state.parts().get(0));
    pending = state;
  }

  @Override
  public String toString() {
    return fingerprint + " for trainer " + rank + " of " + trainers;
  }

  /** Where the epoch's row {@code b·R} lies: unit {@code docs.position()}, its row {@code row}. */
  private record Mark(IterationState docs, int row) {}

  /** One epoch, or the rest of one, for this trainer. */
  private final class Epoch implements PipelineIterator<PackedBatch> {
    private final BatchIterator<? extends Batch> docs;
    private final int epoch;
    private final long start;
    private final long seed;
    private final Packer packer = packing.packer();
    private final PackedRow scratch = new PackedRow(packing.contextLength());
    /** Rows of the first unit that a restored state says were taken before it: dropped. */
    private int skip;
    /** The documents' state before the unit being read, and that unit's rows taken so far. */
    private @Nullable IterationState unitDocs;
    private int unitRows;
    /** The global row the packer gives next. */
    private long row;
    /** Batches this trainer took. */
    private long taken;
    /** Where row {@code boundary()·R} lies, once the seek passed it; null past the epoch's end. */
    private @Nullable Mark mark;
    private boolean end;
    /** The documents' state once their epoch ended: the next epoch's start. */
    private @Nullable IterationState endDocs;
    private @Nullable PackedBatch next;
    private boolean closed;
    /** The pack stage's clock: rows packed, time seeking (packing and reading) and reading documents. */
    private final long started = System.nanoTime();
    private long rowsPacked;
    private long seekNanos;
    private long inputNanos;

    /** The rest of the epoch {@code from} names, or with null the documents' next epoch from its start. */
    Epoch(@Nullable IterationState from) {
      this.docs = documents.iterator();
      if (from == null) {
        // The documents' new iteration names its epoch: unit 0, row 0 of it.
        IterationState d = documents.saveState();
        this.epoch = d.epoch();
        this.seed = d.seed();
        this.start = 0;
        this.skip = 0;
      } else {
        this.epoch = from.epoch();
        this.seed = from.seed();
        this.start = from.position();
        this.skip = from.carried()[0];
      }
      this.row = start * rows;
    }

    /** The position the state names now: {@code s + q·k}. */
    private long boundary() {
      return start + taken * trainers;
    }

    IterationState state() {
      if (mark == null && !end && !closed) {
        // The boundary's row lies at or before this trainer's next batch: seeking that batch passes it.
        hasNext();
      }
      Mark m = mark;
      if (m != null) {
        return new IterationState(seed, epoch, Math.toIntExact(boundary()), new int[] {m.row()}, fingerprint,
            List.of(m.docs()));
      }
      if (!end) {
        throw new IllegalStateException("the iteration was closed before its state was known; save the state before"
            + " closing the iterator");
      }
      // Row b·R is past the epoch's end: the state is the next epoch's start.
      IterationState d = endDocs != null ? endDocs : documents.saveState();
      return new IterationState(d.seed(), d.epoch(), 0, new int[] {0}, fingerprint, List.of(d));
    }

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      if (end || closed) {
        return false;
      }
      long t0 = System.nanoTime();
      try {
        return seek();
      } catch (RuntimeException e) {
        // A refused document or a state over other documents ends the epoch: its files are released.
        release();
        throw e;
      } finally {
        seekNanos += System.nanoTime() - t0;
      }
    }

    /**
     * The documents' pipeline followed by the stage {@value #STAGE}: packing runs on the thread that
     * iterates, so the consumer waits for all of its time (packing, and the documents it reads).
     */
    @Override
    public PipelineStats stats() {
      long wall = System.nanoTime() - started;
      StageStats pack = new StageStats(STAGE, 1, rowsPacked, seekNanos - inputNanos, inputNanos, 0, seekNanos, wall,
          next == null ? 0 : 1, 1);
      return PipelineStats.of(docs).plus(pack);
    }

    /** Drops the other trainers' rows up to this trainer's next batch and takes it. */
    private boolean seek() {
      long j = boundary() + rank;
      long first = j * rows;
      while (row < first) {
        if (!ensureRow()) {
          return finish();
        }
        packer.next(scratch);
        row++;
        unitRows++;
        rowsPacked++;
      }
      List<PackedRow> batch = new ArrayList<>(rows);
      while (batch.size() < rows && ensureRow()) {
        PackedRow r = new PackedRow(packing.contextLength());
        packer.next(r);
        batch.add(r);
        row++;
        unitRows++;
        rowsPacked++;
      }
      if (batch.isEmpty()) {
        return finish();
      }
      next = new PackedBatch(j, batch);
      return true;
    }

    @Override
    public PackedBatch next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      PackedBatch b = next;
      next = null;
      taken++;
      mark = null;
      return b;
    }

    /**
     * Makes the packer hold global row {@code row}, packing the next units as needed, and marks the
     * row when it is the boundary's first. False at the end of the epoch.
     */
    private boolean ensureRow() {
      while (!packer.hasNext()) {
        long t0 = System.nanoTime();
        boolean more = docs.hasNext();
        inputNanos += System.nanoTime() - t0;
        if (!more) {
          if (skip > 0) {
            throw new IllegalStateException("the restored state names row " + skip + " of unit "
                + (unitDocs == null ? "0" : unitDocs.position() + 1) + " of epoch " + epoch + ", past the documents'"
                + " last unit: it was saved over other documents");
          }
          return false;
        }
        unitDocs = documents.saveState();
        t0 = System.nanoTime();
        Batch unit = docs.next();
        inputNanos += System.nanoTime() - t0;
        pack(unit);
        unitRows = 0;
        for (; skip > 0 && packer.hasNext(); skip--) {
          packer.next(scratch);
          unitRows++;
        }
        if (skip > 0) {
          throw new IllegalStateException("the restored state names row " + (unitRows + skip) + " of unit "
              + unitDocs.position() + " of epoch " + epoch + ", which packs into " + unitRows
              + " rows: it was saved over other documents");
        }
      }
      if (mark == null && row == boundary() * rows) {
        mark = new Mark(java.util.Objects.requireNonNull(unitDocs), unitRows);
      }
      return true;
    }

    /** Packs one unit: a batch of documents, with the packer started again and finished after it. */
    private void pack(Batch b) {
      packer.finish();
      packer.restart();
      documents.addTo(b, packer);
      packer.finish();
    }

    private boolean finish() {
      end = true;
      release();
      endDocs = documents.saveState();
      return false;
    }

    /** Closes the documents' iteration without seeking. */
    void release() {
      if (!closed) {
        closed = true;
        docs.close();
      }
    }

    /** Ends the iteration; the state saved after it is the one at this trainer's last batch taken. */
    @Override
    public void close() {
      if (!closed && !end && mark == null && next == null) {
        hasNext(); // marks the boundary (a few of the other trainers' rows ahead at most)
      }
      release();
    }
  }
}
