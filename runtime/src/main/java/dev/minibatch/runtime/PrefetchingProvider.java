package dev.minibatch.runtime;

import dev.minibatch.DataDesc;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Prepares the next batch on a background thread while the consumer works on the current one
 * (double buffering), for any provider. The provider's own ring of batch buffers makes this safe:
 * the background thread starts batch {@code k + 1} only after the consumer has taken batch {@code
 * k}, so it never overwrites a batch still in use, whatever the ring's size (at least two).
 *
 * <p>One thread per epoch, started by {@link #iterator()} and stopped when the epoch ends, when the
 * iterator or this provider is closed, or when a new epoch starts. An exception on the background
 * thread reaches the consumer at its next call, with the original as cause. {@link #close()} closes
 * the wrapped provider.
 *
 * @param <B> the batch type
 */
public final class PrefetchingProvider<B extends Batch> implements BatchProvider<B> {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final Object END = new Object();

  private final BatchProvider<B> provider;
  private @Nullable Epoch current;
  private boolean closed;

  private PrefetchingProvider(BatchProvider<B> provider) {
    this.provider = provider;
  }

  /** {@code provider} with its next batch prepared in the background. */
  public static <B extends Batch> PrefetchingProvider<B> of(BatchProvider<B> provider) {
    return new PrefetchingProvider<>(provider);
  }

  @Override
  public int batchSize() {
    return provider.batchSize();
  }

  @Override
  public List<DataDesc> provideData() {
    return provider.provideData();
  }

  @Override
  public List<DataDesc> provideLabel() {
    return provider.provideLabel();
  }

  /** The wrapped provider. */
  public BatchProvider<B> provider() {
    return provider;
  }

  @Override
  public synchronized BatchIterator<B> iterator() {
    if (closed) {
      throw new IllegalStateException("this PrefetchingProvider is closed");
    }
    Epoch previous = current;
    if (previous != null) {
      previous.close();
    }
    Epoch e = new Epoch(provider.iterator());
    current = e;
    e.start();
    return e;
  }

  /**
   * Stops the epoch in progress and its thread, leaving the wrapped provider open (for a caller
   * that lent its provider and still owns it).
   */
  public synchronized void stop() {
    Epoch e = current;
    if (e != null) {
      e.close();
      current = null;
    }
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      Epoch e = current;
      if (e != null) {
        e.close();
      }
      provider.close();
    }
  }

  /** One epoch: a producer thread handing batches over one at a time. */
  private final class Epoch implements BatchIterator<B> {
    private final BatchIterator<B> source;
    private final SynchronousQueue<Object> handoff = new SynchronousQueue<>();
    private final Thread thread;
    private @Nullable Object next;
    private boolean done;
    private volatile boolean stopped;

    Epoch(BatchIterator<B> source) {
      this.source = source;
      this.thread = new Thread(this::produce, "minibatch-prefetch-" + THREADS.incrementAndGet());
      this.thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void produce() {
      Object last = END;
      try {
        while (!stopped && source.hasNext()) {
          handoff.put(source.next());
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException | Error e) {
        last = e;
      } finally {
        source.close();
      }
      try {
        if (!stopped) {
          handoff.put(last);
        }
      } catch (InterruptedException e) {
        // Closed while handing over the end: nobody is waiting for it.
      }
    }

    @Override
    public boolean hasNext() {
      if (done) {
        return false;
      }
      if (next == null) {
        if (stopped) {
          throw new IllegalStateException("this epoch was closed or superseded by a newer iteration of the provider");
        }
        try {
          next = handoff.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          close();
          throw new IllegalStateException("interrupted while waiting for the next batch", e);
        }
        if (next instanceof Throwable) {
          Throwable t = (Throwable) next;
          done = true;
          join();
          throw new IllegalStateException("the prefetching thread failed: " + t, t);
        }
        if (next == END) {
          done = true;
          join();
          return false;
        }
      }
      return true;
    }

    @Override
    @SuppressWarnings("unchecked")
    public B next() {
      if (!hasNext()) {
        throw new NoSuchElementException("the epoch is over");
      }
      B b = (B) next;
      next = null;
      return b;
    }

    @Override
    public void close() {
      if (!stopped) {
        stopped = true;
        thread.interrupt();
        join();
      }
    }

    private void join() {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
