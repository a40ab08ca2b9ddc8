package dev.minibatch.runtime.internal.pipeline;


import dev.minibatch.runtime.pipeline.Generator.Emitter;
/**
 * The {@link Emitter} of a producer thread: gathers items into a chunk sized by a {@link
 * ChunkPacer} and hands full chunks to the {@link Channel}. Single-threaded.
 */
final class ChunkWriter<T> implements Emitter<T> {
  private final Channel channel;
  private final StageCounters counters;
  private final ChunkPacer pacer;
  private Object[] chunk;
  private int size;
  private long emitted;
  private long busy;
  private long last = System.nanoTime();

  ChunkWriter(Channel channel, StageCounters counters, ChunkPacer pacer) {
    this.channel = channel;
    this.counters = counters;
    this.pacer = pacer;
    this.chunk = new Object[pacer.target()];
  }

  /** The index of the item being produced: the number emitted so far. */
  long index() {
    return emitted;
  }

  @Override
  public void emit(T item) {
    long now = System.nanoTime();
    long cost = now - last;
    last = now;
    if (channel.isClosed()) {
      throw new Channel.Stopped();
    }
    chunk[size++] = item;
    emitted++;
    busy += cost;
    pacer.observe(cost, 1);
    // An item that took long is handed over at once: its consumer may be waiting for it.
    if (size == chunk.length || size >= pacer.target() || cost >= ChunkPacer.TARGET_NANOS) {
      flush();
      last = System.nanoTime();
    }
  }

  /** Hands over what was gathered. */
  @Override
  public void flush() {
    if (channel.isClosed()) {
      throw new Channel.Stopped();
    }
    if (size == 0) {
      return;
    }
    // The items' work ran back to back since the last hand-over: one event ending now.
    counters.addBusy(System.nanoTime(), busy, emitted - size, size);
    counters.addItems(size);
    busy = 0;
    try {
      channel.put(chunk, size);
    } catch (InterruptedException e) {
      // Only a stop interrupts a producer.
      throw new Channel.Stopped();
    }
    chunk = new Object[pacer.target()];
    size = 0;
  }
}
