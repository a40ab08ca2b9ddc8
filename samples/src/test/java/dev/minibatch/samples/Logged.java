package dev.minibatch.samples;

import dev.minibatch.DataProvider;
import dev.minibatch.Provides;
import java.util.List;

/**
 * A sample whose getters record each call in a shared log, for {@link GeneratedProviderTest}: it
 * shows which members the generated collate reads, how often and in which order.
 */
@DataProvider(batchSize = 4)
public final class Logged {
  private final int id;
  private final List<String> log;

  /** Sample {@code id}, logging to {@code log}. */
  public Logged(int id, List<String> log) {
    this.id = id;
    this.log = log;
  }

  /** (id, -id). */
  @Provides(shape = {2})
  public float[] getXy() {
    log.add("xy" + id);
    return new float[] {id, -id};
  }

  /** The id. */
  @Provides(label = true)
  public int getId() {
    log.add("id" + id);
    return id;
  }
}
