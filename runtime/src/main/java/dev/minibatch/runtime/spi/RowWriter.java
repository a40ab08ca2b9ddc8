package dev.minibatch.runtime.spi;

/**
 * Writes samples into rows of a batch: the one contract between the engine and where samples come
 * from. The runtime's own kinds: rows of arrays and files (bulk row copies), objects written by the
 * collate code the annotation processor generates, decoded images, shard-set pages.
 *
 * <p>The engine calls it for the rows {@code [from, to)} of one batch; several reader threads may
 * call it at once for disjoint row ranges of the same slot, so an implementation must not keep
 * unsynchronised per-call state in fields. A failure propagates as thrown; the engine adds the
 * stage and the sample.
 */
@FunctionalInterface
public interface RowWriter {
  /**
   * For every row {@code r} in {@code [from, to)}: writes sample {@code indices[r]} into row {@code
   * r} of every array of {@code slot}. {@code slot.sampleIndices()[r]} holds the sample's index in
   * its source (for error messages; for a streaming source it differs from {@code indices[r]},
   * which then addresses the engine's window of samples).
   */
  void write(int[] indices, int from, int to, Slot slot);
}
