package dev.minibatch.text;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Settings;

/**
 * What a generated provider's builder settings mean for the documents read by its {@code
 * packed(...)} and {@code tokenBudget(...)}: the checks that keep every document exactly once an
 * epoch, in one place for both.
 */
final class FrontEnd {
  private FrontEnd() {}

  /**
   * {@code settings} for the documents' provider, with the settings that keep every document once
   * given explicitly ({@code PARTIAL}, no even shards): a shard source's own builder that sets
   * them otherwise then disagrees at {@code build()}, loudly, instead of winning the merge.
   */
  static Settings.Builder documents(Settings settings) {
    return settings.toBuilder().lastBatch(LastBatch.PARTIAL).evenShards(false);
  }

  /**
   * Refuses the settings that would drop or repeat documents in an epoch: a last-batch policy other
   * than {@code PARTIAL} (discarded, wrapped, padded or rolled-over documents) and {@code evenShards}
   * (repeated documents in the short parts).
   *
   * @throws IllegalArgumentException naming the setting and why
   */
  static void requireEveryDocumentOnce(Settings settings, String what) {
    if (settings.lastBatch() != LastBatch.PARTIAL) {
      throw new IllegalArgumentException(what + " read every document exactly once an epoch, so the documents'"
          + " lastBatch must be PARTIAL, got " + settings.lastBatch() + " (the last batch of " + what + " holds what is"
          + " left)");
    }
    if (settings.sharding().even()) {
      throw new IllegalArgumentException(what + " read every document exactly once an epoch: evenShards(true) would"
          + " repeat documents in the short parts; leave it unset");
    }
  }
}
