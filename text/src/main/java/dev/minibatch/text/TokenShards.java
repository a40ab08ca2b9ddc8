package dev.minibatch.text;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.StageFailedException;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.PrimitiveIterator;

/**
 * Tokenises documents into a shard set: one sample per document, in the documents' order, with the
 * columns {@value #TOKENS} (its token ids, INT32 with one variable axis: the ids, no padding) and
 * {@value #DOC} (INT64: its index in the source). Read the set with {@code ShardProvider}.
 *
 * <pre>{@code
 * TokenShards.Written w = TokenShards.builder().tokenizer(Tokenizers.o200k()).readers(4).build()
 *     .write(Documents.jsonLines(Path.of("corpus.jsonl"), "text"), "corpus-tokens");
 * }</pre>
 *
 * <p>Spark's executors write one with {@code dev.minibatch.spark.SparkTokenShards} (each a segment
 * of the set, through {@link #append}).
 *
 * <p>With {@link Builder#readers(int) readers(n)} the documents are tokenised on {@code n} threads of
 * the runtime's pipeline engine (an ordered parallel map), and written in the source's order, so the
 * files are the same, byte for byte, for any number of readers.
 */
public final class TokenShards {
  /** The column of token ids. */
  public static final String TOKENS = "tokens";
  /** The column of document ids. */
  public static final String DOC = "doc";

  private final Tokenizer tokenizer;
  private final int readers;
  private final ShardWriter writer;

  private TokenShards(Builder b) {
    this.tokenizer = b.tokenizer;
    this.readers = b.readers;
    this.writer = b.writer;
  }

  /**
   * Checks that a provider reads a token shard set: the readers of {@link Packing} and {@link
   * TokenBudget} take its columns {@value #TOKENS} and {@value #DOC}.
   */
  static void requireColumns(ShardProvider tokens) {
    List<String> names = tokens.provideData().stream().map(DataDesc::name).toList();
    if (!names.contains(TOKENS) || !names.contains(DOC)) {
      throw new IllegalArgumentException("not a token shard set: its columns are " + names + ", expected '"
          + TOKENS + "' (the ids) and '" + DOC + "' (the document index), as TokenShards writes");
    }
  }

  /** A builder: {@code cl100k_base}, no reader threads, the default {@link ShardWriter}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Tokenises {@code documents} and writes them to {@code directory}, as {@link ShardWriter#write}
   * writes a provider (the directory must be new or empty, or hold what an unfinished write left).
   *
   * @return the set written and the number of tokens in it
   * @throws FileFormatException naming the file and line of a document that cannot be read (not
   *     UTF-8, a malformed JSON line, a missing member)
   * @throws UncheckedIOException if a file cannot be read or the set cannot be written
   * @throws IllegalArgumentException if there is no document, or the directory holds another shard set
   * @throws StageFailedException if the tokeniser fails on a document (naming its index)
   */
  public Written write(Documents documents, String directory) {
    Reader<int[]> tokenised = readers == 0 ? documents.reader().map(tokenizer::encode)
        : documents.reader().xmap(ParallelOptions.builder().name("tokenize").workers(readers).ordered(true).build(),
            (text, context) -> tokenizer.encode(text));
    try (PipelineIterator<int[]> ids = tokenised.iterator()) {
      TokenBatches batches = new TokenBatches(ids);
      ShardSet set = writer.write(batches, directory);
      return new Written(set, batches.tokens());
    } catch (StageFailedException e) {
      // A document the source could not read: its own error names the file and line.
      Throwable cause = e.getCause();
      if (cause instanceof FileFormatException || cause instanceof UncheckedIOException) {
        cause.addSuppressed(e);
        throw (RuntimeException) cause;
      }
      throw e;
    }
  }

  /**
   * Tokenises {@code texts} on the calling thread and appends them, in their order, to {@code
   * segment} of a token shard set written in parallel ({@link ShardWriter#segment}, then {@link
   * ShardWriter#commit}): one sample per text, its column {@value #DOC} the id {@code ids} gives
   * for it. For writers that tokenise a part of the documents each (Spark's executors: {@code
   * dev.minibatch.spark.SparkTokenShards}); the files hold what {@link #write} writes for the same
   * documents and ids. The {@link Builder#readers readers} and {@link Builder#writer writer} settings
   * are not used: the segment's writer and the caller's thread are.
   *
   * @param ids the documents' ids, one per text, in the same order
   * @return the token ids appended
   * @throws IllegalArgumentException if {@code ids} runs out before {@code texts}, or as {@link
   *     ShardWriter.Segment#write}
   * @throws RuntimeException what the tokeniser or {@code texts} throws
   */
  public long append(ShardWriter.Segment segment, Iterator<String> texts, PrimitiveIterator.OfLong ids) {
    Objects.requireNonNull(segment, "segment");
    Iterator<int[]> tokenised = new Iterator<>() {
      @Override
      public boolean hasNext() {
        return texts.hasNext();
      }

      @Override
      public int[] next() {
        return tokenizer.encode(texts.next());
      }
    };
    TokenBatches batches = new TokenBatches(tokenised, ids);
    segment.write(batches);
    return batches.tokens();
  }

  @Override
  public String toString() {
    return "TokenShards[" + tokenizer.name() + ", readers " + readers + "]";
  }

  /**
   * What {@link #write} wrote: the shard set (its samples are the documents) and the token ids in it.
   *
   * @param shards the shard set
   * @param tokens the token ids of all documents
   */
  public record Written(ShardSet shards, long tokens) {
    /** Checks the values. */
    public Written {
      Objects.requireNonNull(shards, "shards");
    }
  }

  /** Settings of {@link TokenShards}. */
  public static final class Builder {
    private Tokenizer tokenizer = Tokenizers.cl100k();
    private int readers;
    private ShardWriter writer = ShardWriter.builder().build();

    private Builder() {}

    /** The tokeniser (default {@link Tokenizers#cl100k()}); it is called from every reader thread. */
    public Builder tokenizer(Tokenizer tokenizer) {
      this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
      return this;
    }

    /**
     * Threads that tokenise (default 0: on the calling thread, with the writing). The output does not
     * depend on it.
     *
     * @throws IllegalArgumentException if {@code n} is negative
     */
    public Builder readers(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("readers must be >= 0, got " + n);
      }
      this.readers = n;
      return this;
    }

    /** How the files are written: samples per file, compression, Hadoop configuration. */
    public Builder writer(ShardWriter writer) {
      this.writer = Objects.requireNonNull(writer, "writer");
      return this;
    }

    /** The settings, as an immutable value. */
    public TokenShards build() {
      return new TokenShards(this);
    }
  }
}
