package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Readers.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@link Readers#mapReaders}: zips readers (stopping at the shortest) and maps each row of items,
 * one item per reader, to one output.
 */
final class ZippedReader<R> implements Reader<R> {
  private final List<Reader<?>> readers;
  private final Function<? super Tuple, ? extends R> fn;

  ZippedReader(List<? extends Reader<?>> readers, Function<? super Tuple, ? extends R> fn) {
    if (readers.isEmpty()) {
      throw new IllegalArgumentException("mapReaders needs at least one reader");
    }
    this.readers = List.copyOf(readers);
    this.fn = fn;
  }

  @Override
  public PipelineIterator<R> iterator() {
    return over(-1);
  }

  @Override
  public PipelineIterator<R> iterator(int pass) {
    return over(pass);
  }

  /** Every reader's pass {@code pass}, or their next pass for -1. */
  private PipelineIterator<R> over(int pass) {
    List<PipelineIterator<?>> its = new ArrayList<>(readers.size());
    for (Reader<?> r : readers) {
      its.add(pass < 0 ? r.iterator() : r.iterator(pass));
    }
    return new SourceIterator<R>(its) {
      private long index;

      @Override
      Object advance() {
        Object[] row = new Object[its.size()];
        for (int i = 0; i < row.length; i++) {
          PipelineIterator<?> it = its.get(i);
          if (!it.hasNext()) {
            return END;
          }
          row[i] = it.next();
        }
        long at = index++;
        try {
          return fn.apply(Tuple.wrap(row));
        } catch (RuntimeException e) {
          throw StageFailedExceptions.wrap("mapReaders", at, e);
        }
      }
    };
  }
}
