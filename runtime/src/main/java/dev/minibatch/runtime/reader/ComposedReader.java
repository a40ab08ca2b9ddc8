package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Readers.ComposeNotAlignedException;
import dev.minibatch.runtime.reader.Readers.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link Readers#compose}: zips readers and flattens tuple outputs, so composing a reader of {@code
 * (a, b)} with a reader of {@code c} yields {@code (a, b, c)}.
 */
final class ComposedReader implements Reader<Tuple> {
  private final List<Reader<?>> readers;
  private final boolean checkAlignment;

  ComposedReader(List<? extends Reader<?>> readers, boolean checkAlignment) {
    if (readers.isEmpty()) {
      throw new IllegalArgumentException("compose needs at least one reader");
    }
    this.readers = List.copyOf(readers);
    this.checkAlignment = checkAlignment;
  }

  @Override
  public PipelineIterator<Tuple> iterator() {
    return over(-1);
  }

  @Override
  public PipelineIterator<Tuple> iterator(int pass) {
    return over(pass);
  }

  /** Every reader's pass {@code pass}, or their next pass for -1. */
  private PipelineIterator<Tuple> over(int pass) {
    List<PipelineIterator<?>> its = new ArrayList<>(readers.size());
    for (Reader<?> r : readers) {
      its.add(pass < 0 ? r.iterator() : r.iterator(pass));
    }
    return new SourceIterator<Tuple>(its) {
      private long aligned;

      @Override
      Object advance() {
        int ended = 0;
        int firstEnded = -1;
        int firstLive = -1;
        for (int i = 0; i < its.size(); i++) {
          if (its.get(i).hasNext()) {
            if (firstLive < 0) {
              firstLive = i;
            }
          } else {
            ended++;
            if (firstEnded < 0) {
              firstEnded = i;
            }
            if (!checkAlignment) {
              // Stop at the shortest without asking the others for an item they may have to read.
              return END;
            }
          }
        }
        if (ended == its.size()) {
          return END;
        }
        if (ended > 0) {
          throw new ComposeNotAlignedException(aligned,
              "reader " + firstEnded + " ended while reader " + firstLive + " has more");
        }
        List<Object> row = new ArrayList<>(its.size());
        for (PipelineIterator<?> it : its) {
          Object item = it.next();
          if (item instanceof Tuple) {
            row.addAll(((Tuple) item).asList());
          } else {
            row.add(item);
          }
        }
        aligned++;
        return Tuple.of(row);
      }
    };
  }
}
