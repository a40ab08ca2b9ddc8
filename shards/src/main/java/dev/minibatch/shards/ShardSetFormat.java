package dev.minibatch.shards;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.Location;
import dev.minibatch.runtime.io.image.ImageDecoder;
import dev.minibatch.runtime.io.image.ImageDecoders;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.jspecify.annotations.Nullable;

/**
 * The shard set as a {@link Format} ({@code minibatch inspect}, {@code validate}, {@code bench}): a
 * directory holding {@code shards.index}, on a local disk or any Hadoop file system ({@code
 * hdfs://}, {@code s3a://}), reached with a Hadoop {@link Configuration} made of the location's
 * {@linkplain Location#properties() properties}. {@code describe} reads the index only; {@code
 * validate} reads every file whole, checks its length and CRC-32C against the index and every
 * page's CRC-32 against its header, decodes every page and then the whole file as training reads it,
 * and decodes every encoded image as {@link ShardProvider} does by default (the runtime's {@link
 * ImageDecoder}: its JPEG check, then OpenCV), naming the file and the rows (and column) of each
 * problem; {@code provider} is a {@link ShardProvider} in the options' batch size, shuffle and seed.
 * A {@link java.util.ServiceLoader} service, probed after idx, HDF5 and RecordIO ({@link
 * Format#SHARDS_ORDER}).
 */
public final class ShardSetFormat implements Format {
  /** The format; found as a service on the class path. */
  public ShardSetFormat() {}

  @Override
  public String name() {
    return "shards";
  }

  @Override
  public int probeOrder() {
    return SHARDS_ORDER;
  }

  /**
   * A directory holding {@code shards.index}; for a URI, asked of its file system.
   *
   * @throws IllegalArgumentException if no Hadoop file system serves the URI's scheme
   * @throws java.io.UncheckedIOException if the file system cannot be reached
   */
  @Override
  public boolean probe(Location location, byte[] head) {
    if (location.isLocal()) {
      return Files.isRegularFile(location.path().resolve(ShardIndex.NAME));
    }
    // A scheme without a file system on the class path fails here, naming what to add (hadoop-aws for
    // s3a): a clearer message than "not a format this tool knows".
    try (ShardStore store = ShardStore.open(text(location), configuration(location))) {
      return store.exists(ShardIndex.NAME);
    }
  }

  @Override
  public Report describe(Location location, Options options) {
    ShardSet set = ShardSet.open(text(location), configuration(location));
    ShardIndex index = set.index();
    Report r = new Report().field("format", "shard set (" + ShardIndex.NAME + ", Parquet files)")
        .field("samples", Long.toString(set.samples())).field("files", Integer.toString(set.files()));
    for (Column c : index.columns()) {
      r.field("column " + c.name(), c.role().name().toLowerCase(Locale.ROOT) + ", " + c.shape() + " " + c.dtype()
          + " per sample" + (c.encoded() ? ", stored as encoded images (" + c.field().encoding() + ")" : ""));
    }
    List<String> files = new ArrayList<>();
    for (ShardIndex.Entry e : index.files()) {
      files.add(e.name() + ": rows " + e.first() + " to " + (e.first() + e.samples() - 1) + " (" + e.samples()
          + " rows, " + String.format(Locale.ROOT, "%,d", e.bytes()) + " bytes, CRC-32C " + String.format("%08x",
          e.crc32c()) + ")");
    }
    return r.rows("files", files);
  }

  @Override
  public void validate(Location location, Options options, Problems problems) {
    Configuration conf = configuration(location);
    try (ShardStore store = ShardStore.open(text(location), conf)) {
      ShardIndex index;
      try {
        index = ShardIndex.read(store);
      } catch (FileFormatException e) {
        problems.report(e, store.where(ShardIndex.NAME));
        return;
      }
      // One decoder per image column for the whole set: the default settings, so every image is
      // checked as a ShardProvider without augment or normalize settings reads it.
      @Nullable ImageDecoder[] images = new ImageDecoders().decoders(ShardColumns.fields(index.columns()),
          Math.toIntExact(index.samples()), "the shard set " + store.directory());
      for (ShardIndex.Entry e : index.files()) {
        if (problems.isFull()) {
          return;
        }
        file(store, index, e, conf, images, problems);
      }
    }
  }

  /** Checks one file: its length, pages and CRC-32C, then decodes it as a provider does. */
  private static void file(ShardStore store, ShardIndex index, ShardIndex.Entry e, Configuration conf,
      @Nullable ImageDecoder[] images, Problems problems) {
    String where = store.where(e.name());
    byte[] bytes;
    try {
      bytes = store.readFully(e.name(), e.bytes());
    } catch (FileFormatException ex) {
      problems.report(ex, where);
      return;
    }
    ParquetMetadata footer;
    try (ParquetFileReader reader = ParquetFileReader.open(new BytesInputFile(bytes))) {
      footer = reader.getFooter();
    } catch (IOException | RuntimeException ex) {
      problems.report(where, "rows " + e.first() + " to " + (e.first() + e.samples() - 1) + " of the shard set (the"
          + " whole file): not a readable Parquet file, its footer fails: " + ex.getMessage() + crc(bytes, e));
      return;
    }
    if (ShardPages.check(bytes, footer, index.columns(), e.first(), where, problems, conf) > 0) {
      return; // the damaged pages are named; the whole-file decode would stop at the first of them
    }
    ShardFile.Decoded decoded;
    try {
      decoded = ShardFile.decode(bytes, e, index.columns(), where);
    } catch (FileFormatException ex) {
      problems.report(ex, where);
      return;
    }
    for (int c = 0; c < images.length; c++) {
      ImageDecoder image = images[c];
      if (image != null) {
        images(image, decoded, c, index.columns().get(c), e, where, problems);
      }
    }
  }

  /** Decodes every image of column {@code c} of a decoded file, reporting each one that fails. */
  private static void images(ImageDecoder image, ShardFile.Decoded d, int c, Column column, ShardIndex.Entry e,
      String where, Problems problems) {
    ByteBuffer pixels = ByteBuffer.allocateDirect(column.rowBytes()).order(ByteOrder.nativeOrder());
    // Decoded from an array, so served from it: the images are read where they lie.
    ByteBuffer data = d.data(c);
    byte[] bytes = data.array();
    for (int row = 0; row < e.samples() && !problems.isFull(); row++) {
      int start = data.arrayOffset() + d.at(c, row, 0);
      int length = d.bytes(c, row);
      long sample = e.first() + row;
      String at = "row " + sample + " of the shard set (" + row + " of the file), column '" + column.name() + "': ";
      if (length == 0) {
        problems.report(where, at + "an empty value; expected an encoded image (JPEG, PNG)");
        continue;
      }
      try {
        image.write(bytes, start, length, 0, 0, (int) sample, pixels, 0);
      } catch (ImageDecoder.BadImageException ex) {
        problems.report(where, at + ex.getMessage());
      }
    }
  }

  /** {@code "; its CRC-32C is ..., the index says ..."} when the file fails the index's checksum. */
  private static String crc(byte[] bytes, ShardIndex.Entry e) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length);
    return (int) crc.getValue() == e.crc32c() ? "" : "; its CRC-32C is " + String.format("%08x", (int) crc.getValue())
        + ", the index says " + String.format("%08x", e.crc32c());
  }

  @Override
  public BatchProvider<? extends Batch> provider(Location location, Options options) {
    return ShardSet.open(text(location), configuration(location)).provider().settings(options.settings()).build();
  }

  /** What {@link ShardSet#open} takes: the local path as given, or the URI. */
  private static String text(Location location) {
    return location.isLocal() ? location.path().toString() : location.uri().toString();
  }

  /** Hadoop's defaults with the location's properties (endpoints, credentials) set over them. */
  private static Configuration configuration(Location location) {
    Configuration conf = new Configuration();
    for (Map.Entry<String, String> p : location.properties().entrySet()) {
      conf.set(p.getKey(), p.getValue());
    }
    return conf;
  }
}
