package dev.minibatch.spark;

import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import dev.minibatch.text.TokenShards;
import dev.minibatch.text.Tokenizers;
import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.PrimitiveIterator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.jspecify.annotations.Nullable;

/**
 * Documents in a DataFrame tokenised on Spark's executors and written as the token shard set {@link
 * TokenShards} writes: one sample per document, its token ids ({@value TokenShards#TOKENS}, INT32 of
 * variable length) and its id ({@value TokenShards#DOC}, INT64). Each partition is one segment of
 * the set, tokenised and written by its task ({@link TokenShards#append}); the driver commits them.
 *
 * <pre>{@code
 * TokenShards.Written w = SparkTokenShards.builder().tokenizer("cl100k_base").idColumn("id")
 *     .writer(ShardWriter.builder().configuration(spark.sparkContext().hadoopConfiguration()).build()).build()
 *     .write(spark.read().parquet("hdfs://nn/corpus"), "text", "hdfs://nn/data/corpus-tokens");
 * }</pre>
 *
 * <p>The documents' order and ids: with an {@link Builder#idColumn id column}, the documents sorted
 * by it, each with its id (so the set does not depend on the input's partitions); without one, the
 * DataFrame's own order, each numbered by its place in it from 0, as {@link TokenShards#write}
 * numbers a source's documents.
 */
public final class SparkTokenShards implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String tokenizer;
  private final @Nullable String idColumn;
  private final ShardWriter writer;

  private SparkTokenShards(Builder b) {
    this.tokenizer = b.tokenizer;
    this.idColumn = b.idColumn;
    this.writer = b.writer;
  }

  /** A builder: {@code cl100k_base}, no id column, the default {@link ShardWriter}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Tokenises the documents of {@code df} (the text in {@code textColumn}, a string column) and
   * writes them to {@code directory} (a local path or a Hadoop URI) in one job that tokenises and
   * writes. With an id column the sort before it samples the ids; without one, a job counts each
   * partition's rows first (to number them), and the DataFrame must give the same partitions both
   * times (a file or table does; one whose order varies between reads needs sorting, or an id).
   *
   * @return the set written and the number of tokens in it
   * @throws IllegalArgumentException naming a column that is missing or of another type; if the
   *     DataFrame is empty or the directory holds a shard set already
   * @throws IllegalStateException if {@code spark.speculation} is on, or the DataFrame gave other
   *     partitions when counted and when written
   * @throws SparkSampleException naming the document (its id, or its place) whose text or id is null,
   *     or the id that appears twice
   */
  public TokenShards.Written write(Dataset<Row> df, String textColumn, String directory) {
    Objects.requireNonNull(directory, "directory");
    require(df, textColumn, DataTypes.StringType, "string");
    String id = idColumn;
    if (id != null) {
      DataType t = type(df, id);
      if (!t.equals(DataTypes.LongType) && !t.equals(DataTypes.IntegerType)) {
        throw new IllegalArgumentException("idColumn '" + id + "' has type " + t.simpleString() + ", expected bigint or"
            + " int (the document ids)");
      }
    }
    ShardJobs.refuseSpeculation(df.sparkSession(), "SparkTokenShards.write");
    // Fails here, on the driver, for a directory that holds a shard set already or cannot be reached.
    writer.segment(directory, 0).close();
    JavaRDD<Row> rows = id == null ? df.select(functions.col(textColumn)).javaRDD()
        : df.select(functions.col(textColumn), functions.col(id)).orderBy(functions.col(id)).javaRDD();
    long[] first = null;
    if (id == null) {
      List<Long> counts = SparkSampleException.action(() -> rows.mapPartitions(it -> {
        long n = 0;
        for (; it.hasNext(); it.next()) {
          n++;
        }
        return List.of(n).iterator();
      }).collect());
      first = new long[counts.size() + 1];
      for (int p = 0; p < counts.size(); p++) {
        first[p + 1] = first[p] + counts.get(p);
      }
    }
    long[] numbered = first;
    List<Part> parts = SparkSampleException.action(() -> rows.mapPartitionsWithIndex((p, it) -> List.of(
        segment(p, it, numbered == null ? -1 : numbered[p], textColumn, directory)).iterator(), true).collect());
    List<ShardWriter.WrittenSegment> segments = new ArrayList<>(parts.size());
    long documents = 0;
    long tokens = 0;
    for (Part part : parts) {
      int p = part.segment().segment();
      if (numbered != null && part.documents() != numbered[p + 1] - numbered[p]) {
        throw new IllegalStateException("partition " + p + " held " + (numbered[p + 1] - numbered[p]) + " rows when"
            + " counted and " + part.documents() + " when written: the DataFrame's order differs between reads; sort"
            + " it, or number the documents with idColumn");
      }
      segments.add(part.segment());
      documents += part.documents();
      tokens += part.tokens();
    }
    if (documents == 0) {
      throw new IllegalArgumentException("no documents: the DataFrame is empty");
    }
    ShardSet set = writer.commit(directory, segments);
    return new TokenShards.Written(set, tokens);
  }

  /** On an executor: partition {@code p}'s documents tokenised and written as segment {@code p}. */
  private Part segment(int p, Iterator<Row> rows, long first, String textColumn, String directory) {
    TokenShards tokens = TokenShards.builder().tokenizer(Tokenizers.named(tokenizer)).build();
    Documents documents = new Documents(rows, p, first, textColumn, idColumn);
    try (ShardWriter.Segment segment = writer.segment(directory, p)) {
      long n = tokens.append(segment, documents, documents.ids);
      return new Part(segment.finish(), documents.count, n);
    }
  }

  private static DataType type(Dataset<Row> df, String column) {
    Objects.requireNonNull(column, "column");
    for (StructField f : df.schema().fields()) {
      if (f.name().equals(column)) {
        return f.dataType();
      }
    }
    throw new IllegalArgumentException("column '" + column + "' is not in the DataFrame; it has columns "
        + Arrays.toString(df.schema().fieldNames()));
  }

  private static void require(Dataset<Row> df, String column, DataType expected, String what) {
    DataType found = type(df, column);
    if (!found.equals(expected)) {
      throw new IllegalArgumentException("text column '" + column + "' has type " + found.simpleString() + ", expected "
          + what);
    }
  }

  @Override
  public String toString() {
    return "SparkTokenShards[" + tokenizer + (idColumn == null ? "" : ", ids from '" + idColumn + "'") + "]";
  }

  /** What one task wrote: its segment, documents and token ids. */
  private record Part(ShardWriter.WrittenSegment segment, long documents, long tokens) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /**
   * A partition's texts, each checked, with their ids in {@link #ids}: read by the same writer in
   * document order, a little behind the texts (a batch of texts is read before its ids).
   */
  private static final class Documents implements Iterator<String> {
    private final Iterator<Row> rows;
    private final int partition;
    private final long first;
    private final String textColumn;
    private final @Nullable String idColumn;
    private final ArrayDeque<Long> pending = new ArrayDeque<>();
    private long count;
    private long lastId = Long.MIN_VALUE;

    final PrimitiveIterator.OfLong ids = new PrimitiveIterator.OfLong() {
      @Override
      public boolean hasNext() {
        return !pending.isEmpty();
      }

      @Override
      public long nextLong() {
        Long id = pending.poll();
        if (id == null) {
          throw new NoSuchElementException();
        }
        return id;
      }
    };

    Documents(Iterator<Row> rows, int partition, long first, String textColumn, @Nullable String idColumn) {
      this.rows = rows;
      this.partition = partition;
      this.first = first;
      this.textColumn = textColumn;
      this.idColumn = idColumn;
    }

    @Override
    public boolean hasNext() {
      return rows.hasNext();
    }

    @Override
    public String next() {
      Row r = rows.next();
      long id;
      String where;
      if (idColumn == null) {
        id = first + count;
        where = "document " + id;
      } else {
        if (r.isNullAt(1)) {
          throw new SparkSampleException("row " + count + " of partition " + partition + " (sorted by id)", -1,
              new IllegalArgumentException("idColumn '" + idColumn + "' is null"));
        }
        id = ((Number) r.get(1)).longValue();
        where = "document id " + id;
        if (count > 0 && id == lastId) {
          throw new SparkSampleException(where, id, new IllegalArgumentException("the id appears twice in idColumn '"
              + idColumn + "'; each document needs an id of its own"));
        }
        lastId = id;
      }
      if (r.isNullAt(0)) {
        throw new SparkSampleException(where, id, new IllegalArgumentException("text column '" + textColumn
            + "' is null"));
      }
      pending.add(id);
      count++;
      return r.getString(0);
    }
  }

  /** Settings of {@link SparkTokenShards}. */
  public static final class Builder {
    private String tokenizer = "cl100k_base";
    private @Nullable String idColumn;
    private ShardWriter writer = ShardWriter.builder().build();

    private Builder() {}

    /**
     * The bundled tokeniser, by name ({@link Tokenizers#named}: {@code cl100k_base}, the default, or
     * {@code o200k_base}); each executor loads it once.
     *
     * @throws IllegalArgumentException naming the bundled tokenisers if there is none of this name
     */
    public Builder tokenizer(String name) {
      Tokenizers.named(name);
      this.tokenizer = name;
      return this;
    }

    /**
     * The column of document ids ({@code bigint} or {@code int}, each document's own): the documents
     * are written sorted by it, each with its id. Default none: the DataFrame's order, numbered from 0.
     */
    public Builder idColumn(String column) {
      this.idColumn = Objects.requireNonNull(column, "column");
      return this;
    }

    /** How the files are written: samples per file, compression, the Hadoop configuration of the file system. */
    public Builder writer(ShardWriter writer) {
      this.writer = Objects.requireNonNull(writer, "writer");
      return this;
    }

    /** The settings, as an immutable value. */
    public SparkTokenShards build() {
      return new SparkTokenShards(this);
    }
  }
}
