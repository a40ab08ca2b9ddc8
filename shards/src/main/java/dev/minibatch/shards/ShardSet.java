package dev.minibatch.shards;

import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * A shard set as its index describes it: where it is, its samples, its Parquet files and the arrays
 * of one sample. Opening one reads the index only; {@link #provider()} streams the samples.
 */
public final class ShardSet {
  private final String location;
  private final ShardIndex index;
  private final Configuration conf;

  ShardSet(String location, ShardIndex index, Configuration conf) {
    this.location = location;
    this.index = index;
    this.conf = conf;
  }

  /**
   * The shard set in {@code location} (a local path or a Hadoop URI), read with a default Hadoop
   * configuration.
   *
   * @throws FileFormatException if the directory has no index, or the index is malformed (naming
   *     its line)
   * @throws UncheckedIOException if the file system cannot be read
   */
  public static ShardSet open(String location) {
    return open(location, new Configuration());
  }

  /** The shard set in {@code location}, read with {@code conf} (credentials, endpoints). */
  public static ShardSet open(String location, Configuration conf) {
    Configuration c = new Configuration(conf);
    try (ShardStore store = ShardStore.open(location, c)) {
      return new ShardSet(store.directory().toString(), ShardIndex.read(store), c);
    }
  }

  /** The directory, as a URI. */
  public String location() {
    return location;
  }

  /** The number of samples. */
  public long samples() {
    return index.samples();
  }

  /** The number of Parquet files. */
  public int files() {
    return index.files().size();
  }

  /** The data arrays of one sample, as a provider of batch size 1 describes them. */
  public List<DataDesc> data() {
    return descs(Role.DATA);
  }

  /** The label arrays of one sample, as a provider of batch size 1 describes them. */
  public List<DataDesc> label() {
    return descs(Role.LABEL);
  }

  /** A builder of a provider over these samples. */
  public ShardProvider.Builder provider() {
    return ShardProvider.builder(ShardSource.of(location).configuration(conf).index(index).build());
  }

  ShardIndex index() {
    return index;
  }

  Configuration configuration() {
    return new Configuration(conf);
  }

  private List<DataDesc> descs(Role role) {
    List<DataDesc> out = new ArrayList<>();
    for (Column c : index.columns()) {
      if (c.role() == role) {
        out.add(c.toDataDesc(1));
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "shard set " + location + ": " + samples() + " samples in " + files() + " files";
  }
}
