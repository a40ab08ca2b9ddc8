package dev.minibatch.spark;

import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.internal.settings.Sampling;

/**
 * Reads the {@link Sampling} a {@link ProviderSettings} sets, with the generated provider's declared
 * default batch size, on the driver: the order the executors follow is planned from it.
 */
final class SettingsProbe extends ProviderBuilder<SettingsProbe> {
  private SettingsProbe() {}

  static Sampling sampling(SparkRows<?, ?> rows, ProviderSettings settings, int numParts, int part) {
    SettingsProbe p = new SettingsProbe();
    if (rows.defaultBatchSize() > 0) {
      p.batchSize(rows.defaultBatchSize());
    }
    settings.accept(p);
    p.shard(numParts, part);
    return Sampling.resolve(p.settings());
  }
}
