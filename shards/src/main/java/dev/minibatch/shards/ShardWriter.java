package dev.minibatch.shards;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.internal.nd4j.DTypes;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Writes a shard set: the samples of one epoch of a provider, in its order, as Parquet files of
 * {@link Builder#samplesPerFile(int)} samples each ({@code part-00000.parquet}, …) and their index
 * ({@value ShardIndex#NAME}), into a directory that must be empty or absent. Each provided array is
 * a required fixed-size binary column of little-endian bytes (docs/shards.md, "The format"), so the
 * files open in any Parquet reader (pyarrow, Spark, DuckDB) and decode in minibatch with one copy.
 *
 * <pre>{@code
 * try (DigitProvider digits = DigitProvider.builder().samples(list).batchSize(1024).build()) {
 *   ShardSet set = ShardWriter.builder().samplesPerFile(10_000).build().write(digits, "hdfs://nn/data/digits");
 * }
 * }</pre>
 */
public final class ShardWriter {
  /** The codec of the files' pages. */
  public enum Compression {
    /** No compression (the default): pages decode with one copy. */
    NONE(CompressionCodecName.UNCOMPRESSED),
    /** Snappy: fast, modest ratios. */
    SNAPPY(CompressionCodecName.SNAPPY),
    /** Zstandard: better ratios for data read over a network. */
    ZSTD(CompressionCodecName.ZSTD);

    private final CompressionCodecName codec;

    Compression(CompressionCodecName codec) {
      this.codec = codec;
    }
  }

  private final int samplesPerFile;
  private final Compression compression;
  private final Configuration conf;

  private ShardWriter(Builder b) {
    this.samplesPerFile = b.samplesPerFile;
    this.compression = b.compression;
    Configuration c = b.conf;
    this.conf = c != null ? new Configuration(c) : new Configuration();
  }

  /** A writer with the default settings. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Writes one epoch of {@code provider} (the rows of each batch that are samples, not padding) as a
   * shard set in {@code directory}: a local path or a Hadoop URI ({@code file://}, {@code hdfs://},
   * {@code s3a://}).
   *
   * @return the shard set written
   * @throws IllegalArgumentException if the directory holds files already, or an array has a
   *     variable axis
   * @throws UncheckedIOException if the file system fails
   */
  public ShardSet write(BatchProvider<? extends Batch> provider, String directory) {
    List<Column> columns = ShardColumns.of(provider.provideData(), provider.provideLabel());
    try (ShardStore store = ShardStore.open(directory, conf)) {
      if (store.hasFiles()) {
        throw new IllegalArgumentException(store.directory() + " already holds files; a shard set is written into an"
            + " empty or new directory");
      }
      List<ShardIndex.Entry> files = new ArrayList<>();
      FileWriter out = null;
      long written = 0;
      try {
        RowCursor cursor = new RowCursor(columns);
        for (Batch batch : provider) {
          cursor.load(batch);
          int rows = batch.countSamples();
          for (int r = 0; r < rows; r++) {
            if (out == null) {
              out = new FileWriter(store, String.format("part-%05d.parquet", files.size()), written, columns);
            }
            cursor.row = r;
            out.write(cursor);
            written++;
            if (out.samples == samplesPerFile) {
              files.add(out.finish());
              out = null;
            }
          }
        }
        if (out != null) {
          files.add(out.finish());
          out = null;
        }
      } finally {
        if (out != null) {
          out.abandon();
        }
      }
      if (files.isEmpty()) {
        throw new IllegalArgumentException("the provider gave no sample: a shard set holds at least one");
      }
      ShardIndex index = new ShardIndex(columns, files);
      store.writeText(ShardIndex.NAME, index.text());
      return new ShardSet(store.directory().toString(), index, conf);
    }
  }

  /** One shard file being written. */
  private final class FileWriter {
    final String name;
    final long first;
    final CrcOutputFile file;
    final ParquetWriter<RowCursor> writer;
    int samples;

    FileWriter(ShardStore store, String name, long first, List<Column> columns) {
      this.name = name;
      this.first = first;
      this.file = new CrcOutputFile(store.fileSystem(), store.path(name));
      try {
        this.writer = new RowWriteSupport.Builder(file, columns)
            .withCompressionCodec(compression.codec)
            .withDictionaryEncoding(false)
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
            .withPageWriteChecksumEnabled(true)
            .withConf(conf)
            .build();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + store.where(name) + ": " + e.getMessage(), e);
      }
    }

    void write(RowCursor row) {
      try {
        writer.write(row);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + name + ": " + e.getMessage(), e);
      }
      samples++;
    }

    ShardIndex.Entry finish() {
      try {
        writer.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + name + ": " + e.getMessage(), e);
      }
      return new ShardIndex.Entry(name, first, samples, file.length(), file.crc32c());
    }

    void abandon() {
      try {
        writer.close();
      } catch (IOException | RuntimeException e) {
        // The write failed already; that failure is the one to report.
      }
    }
  }

  /** Where the writer reads the row being written: the current batch's arrays and a row. */
  static final class RowCursor {
    final List<Column> columns;
    final ByteBuffer[] arrays;
    // The arrays the buffers view: a copy made here (of a view, or a non-C-order array) would
    // otherwise be collectable, and its native memory freed, while its rows are still being read.
    final INDArray[] held;
    final int[] offsets;
    final byte[][] rowBytes;
    int row;

    RowCursor(List<Column> columns) {
      this.columns = columns;
      this.arrays = new ByteBuffer[columns.size()];
      this.held = new INDArray[columns.size()];
      this.offsets = new int[columns.size()];
      this.rowBytes = new byte[columns.size()][];
      for (int i = 0; i < rowBytes.length; i++) {
        rowBytes[i] = new byte[columns.get(i).rowBytes()];
      }
    }

    /** Points at {@code batch}'s arrays. */
    void load(Batch batch) {
      if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
        throw new UnsupportedOperationException("shard files are little-endian; this machine is big-endian");
      }
      for (int i = 0; i < arrays.length; i++) {
        Column c = columns.get(i);
        INDArray a = batch.get(c.name());
        if (a.dataType() != DTypes.toNd4j(c.dtype())) {
          throw new IllegalArgumentException("array '" + c.name() + "' of the batch is " + a.dataType() + ", the provider"
              + " describes it as " + c.dtype());
        }
        if (a.isView() || a.ordering() != 'c') {
          a = a.dup('c');
        }
        held[i] = a;
        arrays[i] = a.data().asNio().order(ByteOrder.LITTLE_ENDIAN);
        offsets[i] = Math.toIntExact(a.offset() * a.data().getElementSize());
      }
    }

    /** Row {@link #row} of column {@code i} as bytes, in a buffer reused for every row. */
    byte[] bytes(int i) {
      byte[] out = rowBytes[i];
      arrays[i].get(offsets[i] + row * out.length, out, 0, out.length);
      return out;
    }
  }

  /** Settings of a {@link ShardWriter}. */
  public static final class Builder {
    private int samplesPerFile = 10_000;
    private Compression compression = Compression.NONE;
    private @Nullable Configuration conf;

    private Builder() {}

    /** Samples per Parquet file, {@code >= 1}; default 10 000. Each file is read whole into the cache. */
    public Builder samplesPerFile(int samples) {
      if (samples < 1) {
        throw new IllegalArgumentException("samplesPerFile must be >= 1, got " + samples);
      }
      this.samplesPerFile = samples;
      return this;
    }

    /** The pages' codec; default {@link Compression#NONE}. */
    public Builder compression(Compression compression) {
      this.compression = Objects.requireNonNull(compression, "compression");
      return this;
    }

    /** The Hadoop configuration of the file system (credentials, endpoints); default a new one. */
    public Builder configuration(Configuration conf) {
      this.conf = Objects.requireNonNull(conf, "conf");
      return this;
    }

    /** The writer. */
    public ShardWriter build() {
      return new ShardWriter(this);
    }
  }
}
