package dev.minibatch.text;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.shards.ShardProvider;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * How documents of token ids are packed into rows of exactly the context length {@code L}, as an
 * immutable value; {@link #packer()} does the packing, {@link #rows(Reader)} and {@link
 * #rows(ShardProvider)} pack whole passes, and {@link #batches(ShardProvider, int, int, int)} deals
 * packed batches to trainers, resumable mid-epoch under another trainer count. Two modes:
 *
 * <ul>
 *   <li>{@link Builder#concatenate() concatenate} (the default): the documents one after the other,
 *       cut every {@code L} tokens; a document may be split across rows, each piece a segment of its
 *       row; only the last row has padding.
 *   <li>{@link Builder#bestFit(int) bestFit(window)}: whole documents placed, in order, each into
 *       the open row with the least free space that holds it (the earliest opened among equals), or
 *       a new row; a row is complete when full, when more than {@code window} rows are open (the
 *       earliest opened), or at the end (in the order they were opened). A document longer than
 *       {@code L} is refused or, with {@link Overlong#SPLIT}, cut: its leading pieces of {@code L}
 *       are rows of their own, complete at once, and its tail is placed as a document.
 * </ul>
 *
 * <p>A {@link Builder#separator(int) separator} token is appended to every document and counts as
 * one of its tokens. The rows depend on the documents and the settings only: on nothing else, so a
 * seeded source gives the same rows on every run and for any number of reader threads.
 */
public final class Packing {
  /** The label where no token follows in the same document: PyTorch's ignore index. */
  public static final int IGNORE = -100;

  /** The documents a generated provider's {@code packed(...)} packs at a time, by default. */
  public static final int DOCUMENTS_PER_UNIT = 1024;

  /** What best fit does with a document longer than the context length. */
  public enum Overlong {
    /** Refuse it: an {@link IllegalArgumentException} naming the document and its length. */
    REFUSE,
    /** Cut it: rows of {@code L} of its leading tokens, its tail placed as a document. */
    SPLIT
  }

  private final int contextLength;
  private final boolean bestFit;
  private final int window;
  private final Overlong overlong;
  private final int separator;
  private final int padding;
  private final boolean shiftLabels;
  private final int documentsPerUnit;

  private Packing(Builder b) {
    this.contextLength = b.contextLength;
    this.bestFit = b.bestFit;
    this.window = b.window;
    this.overlong = b.overlong;
    this.separator = b.separator;
    this.padding = b.padding;
    this.shiftLabels = b.shiftLabels;
    this.documentsPerUnit = b.documentsPerUnit;
  }

  /**
   * A builder for rows of {@code contextLength} positions: concatenate, no separator, padding id 0,
   * no labels.
   *
   * @throws IllegalArgumentException if {@code contextLength} is not positive
   */
  public static Builder builder(int contextLength) {
    return new Builder(contextLength);
  }

  /** The context length {@code L}: the positions of every row. */
  public int contextLength() {
    return contextLength;
  }

  boolean bestFit() {
    return bestFit;
  }

  int window() {
    return window;
  }

  boolean splitOverlong() {
    return overlong == Overlong.SPLIT;
  }

  int separator() {
    return separator;
  }

  int padding() {
    return padding;
  }

  boolean shiftLabels() {
    return shiftLabels;
  }

  /** A new packer with these settings, for one stream of documents. */
  public Packer packer() {
    return new Packer(this);
  }

  /**
   * The rows of each pass of {@code documents} (each {@code int[]} a document's token ids; document
   * {@code i} is the pass's {@code i}-th): a reader whose every pass packs one pass of the documents
   * with a new packer, on the thread that reads it. Every row is a new {@link PackedRow}.
   */
  public Reader<PackedRow> rows(Reader<int[]> documents) {
    return () -> {
      PipelineIterator<int[]> docs = documents.iterator();
      return new Rows(packer(), docs::close, p -> {
        if (!docs.hasNext()) {
          return false;
        }
        p.add(docs.next());
        return true;
      });
    };
  }

  /**
   * The rows of each epoch of a token shard set (written by {@link TokenShards}): a reader whose every
   * pass reads the provider's next epoch, in its order (shuffled and sharded as it is built), and
   * packs the column {@value TokenShards#TOKENS} of each sample, reporting its column {@value
   * TokenShards#DOC} as the document. The rows depend on the provider's order only, so they are the
   * same for any number of its reader threads. Every row is a new {@link PackedRow}.
   *
   * @throws IllegalArgumentException if the provider has no INT32 column {@value TokenShards#TOKENS}
   *     with a variable axis or no column {@value TokenShards#DOC}
   */
  public Reader<PackedRow> rows(ShardProvider tokens) {
    TokenShards.requireColumns(tokens);
    return rows(new TokenDocuments(tokens, TokenShards.TOKENS, TokenShards.DOC));
  }

  /**
   * The rows of each epoch of any provider whose member {@code tokens} holds a variable-length INT32
   * sequence per sample (a generated provider over a List or a stream with a {@code VARIABLE} int
   * member, a shard set's variable column, …): a reader whose every pass reads the provider's next
   * epoch in its order and packs each sample's tokens, its own length of them, as one document whose
   * index is the sample's index in its source. The rows depend on the provider's order only, so they
   * are the same for any number of its reader threads. Every row is a new {@link PackedRow}.
   *
   * @throws IllegalArgumentException if the provider has no member {@code tokens}; when read, if
   *     the member has no lengths (no variable axis)
   */
  public Reader<PackedRow> rows(BatchProvider<? extends Batch> documents, String tokens) {
    return rows(new TokenDocuments(documents, tokens, null));
  }

  private Reader<PackedRow> rows(TokenDocuments documents) {
    return () -> {
      BatchIterator<? extends Batch> batches = documents.iterator();
      return new Rows(packer(), batches::close, p -> {
        if (!batches.hasNext()) {
          return false;
        }
        documents.addTo(batches.next(), p);
        return true;
      });
    };
  }

  /**
   * The packed rows of each epoch of a token shard set in global batches of {@code rows} rows, dealt
   * to trainer {@code rank} of {@code trainers}, resumable mid-epoch under any trainer count: see
   * {@link PackedBatches} for the rule. Each unit, a batch of the provider, is packed on its own, so
   * its last row may have padding. Every trainer reads the whole provider, which must therefore not
   * be sharded; the rows are the same for any number of its reader threads.
   *
   * @throws IllegalArgumentException if {@code rows} or {@code trainers} is not positive, {@code
   *     rank} is not in {@code [0, trainers)}, the provider is not a token shard set, or it reads a
   *     part of its samples (built with {@code shard(k, p)})
   */
  public PackedBatches batches(ShardProvider tokens, int rows, int trainers, int rank) {
    TokenShards.requireColumns(tokens);
    if (tokens.shardSize() < tokens.numSamples()) {
      throw new IllegalArgumentException("the documents' provider reads " + tokens.shardSize() + " of its "
          + tokens.numSamples() + " samples an epoch: packed batches are dealt to trainers after packing, so every"
          + " trainer reads all documents; build the provider without shard(k, p)");
    }
    return batches(new TokenDocuments(tokens, TokenShards.TOKENS, TokenShards.DOC), rows, trainers, rank);
  }

  /**
   * As {@link #batches(ShardProvider, int, int, int)}, for any {@link Resumable} provider whose member
   * {@code tokens} holds a variable-length INT32 sequence per sample, each sample a document (its
   * index the sample's index in its source). The provider must read all its samples each epoch
   * (not built with {@code shard(k, p)}): every trainer reads every document, and the packed rows
   * are dealt.
   *
   * @throws IllegalArgumentException as the other, and if the provider is not {@link Resumable} or
   *     has no member {@code tokens}
   */
  public PackedBatches batches(BatchProvider<? extends Batch> documents, String tokens, int rows, int trainers,
      int rank) {
    if (!(documents instanceof Resumable)) {
      throw new IllegalArgumentException("the documents' provider " + documents.getClass().getSimpleName()
          + " is not Resumable: packed batches save their place as the documents' state");
    }
    return batches(new TokenDocuments(documents, tokens, null), rows, trainers, rank);
  }

  /**
   * The packed batches of the documents' provider that {@code documents} builds, typed by {@code
   * typed}: what a generated provider's {@code packed(...)} returns, its builder's settings in {@code
   * settings}. Those settings mean, for the packed batches: {@code batchSize} the rows {@code R} of a
   * global batch; {@code shard(k, p)} trainer {@code p} of {@code k}, dealt as {@link
   * #batches(BatchProvider, String, int, int, int)} deals (resumable under another trainer count);
   * shuffle, seed, buckets, readers and the source the documents' order and reading. The provider is
   * built once, at once, with those settings but {@link Builder#documentsPerUnit(int)} documents a
   * batch (a unit) and one part: every trainer reads every document. Closing the result closes it.
   *
   * @throws IllegalArgumentException if the settings have no positive batch size, or drop or repeat
   *     documents ({@code lastBatch} other than {@code PARTIAL}, {@code evenShards}), or the provider
   *     has no member {@code tokens}
   */
  public <B> TypedPackedBatches<B> batches(Settings settings,
      Function<Settings, ? extends BatchProvider<? extends Batch>> documents, String tokens,
      Function<PackedBatch, ? extends B> typed) {
    int rows = settings.batchSize().orElse(0);
    if (rows <= 0) {
      throw new IllegalArgumentException("packed batches need batchSize(R), the rows of a batch, > 0, set on the"
          + " provider's builder; got " + (settings.batchSize().isPresent() ? rows + " (the whole data set as one batch)"
          : "none"));
    }
    FrontEnd.requireEveryDocumentOnce(settings, "packed batches");
    Settings.Sharding sharding = settings.sharding();
    Settings read = FrontEnd.documents(settings).batchSize(documentsPerUnit).shard(1, 0).build();
    BatchProvider<? extends Batch> provider = documents.apply(read);
    try {
      PackedBatches packed = batches(provider, tokens, rows, sharding.numParts(), sharding.partIndex());
      return new TypedPackedBatches<>(packed, provider, typed);
    } catch (RuntimeException e) {
      provider.close();
      throw e;
    }
  }

  private PackedBatches batches(TokenDocuments documents, int rows, int trainers, int rank) {
    if (rows <= 0) {
      throw new IllegalArgumentException("rows must be > 0 rows per batch, got " + rows);
    }
    if (trainers <= 0 || rank < 0 || rank >= trainers) {
      throw new IllegalArgumentException("trainer " + rank + " of " + trainers + ": expected trainers > 0 and a rank"
          + " in [0, trainers)");
    }
    return new PackedBatches(this, documents, rows, trainers, rank);
  }

  @Override
  public String toString() {
    return "Packing[L " + contextLength + (bestFit ? ", best fit, window " + window + ", " + overlong : ", concatenate")
        + (separator >= 0 ? ", separator " + separator : "") + (shiftLabels ? ", labels" : "") + "]";
  }

  /** Feeds a packer from a source: adds what it reads and says false once the source is done. */
  private interface Feed {
    boolean feed(Packer packer);
  }

  /** One pass of rows: pulls from the feed until the packer has a row, finishing it at the end. */
  private final class Rows implements PipelineIterator<PackedRow> {
    private final Packer packer;
    private final Runnable closer;
    private final Feed feed;
    private boolean closed;

    Rows(Packer packer, Runnable closer, Feed feed) {
      this.packer = packer;
      this.closer = closer;
      this.feed = feed;
    }

    @Override
    public boolean hasNext() {
      while (!packer.hasNext() && !closed) {
        boolean more;
        try {
          more = feed.feed(packer);
        } catch (RuntimeException e) {
          // A refused document ends the pass: the source's files and threads are released at once.
          close();
          throw e;
        }
        if (!more) {
          packer.finish();
          close();
        }
      }
      return packer.hasNext();
    }

    @Override
    public PackedRow next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      PackedRow row = new PackedRow(contextLength);
      packer.next(row);
      return row;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        closer.run();
      }
    }
  }

  /** Settings of {@link Packing}. */
  public static final class Builder {
    private final int contextLength;
    private boolean bestFit;
    private int window = 1;
    private Overlong overlong = Overlong.REFUSE;
    private int separator = -1;
    private int padding;
    private boolean shiftLabels;
    private int documentsPerUnit = DOCUMENTS_PER_UNIT;

    private Builder(int contextLength) {
      if (contextLength <= 0) {
        throw new IllegalArgumentException("contextLength must be > 0, got " + contextLength);
      }
      this.contextLength = contextLength;
    }

    /** Concatenate the documents and cut rows of the context length (the default). */
    public Builder concatenate() {
      this.bestFit = false;
      return this;
    }

    /**
     * Best-fit packing of whole documents with at most {@code window} rows open at once: more rows
     * fill better, each holds {@code L} ids while open.
     *
     * @throws IllegalArgumentException if {@code window} is not positive
     */
    public Builder bestFit(int window) {
      if (window <= 0) {
        throw new IllegalArgumentException("window must be > 0 rows, got " + window);
      }
      this.bestFit = true;
      this.window = window;
      return this;
    }

    /** What best fit does with a document longer than the context length (default {@link Overlong#REFUSE}). */
    public Builder overlong(Overlong policy) {
      this.overlong = java.util.Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * A token appended to every document (an end-of-text id), one of its tokens; default none.
     *
     * @throws IllegalArgumentException if {@code id} is negative
     */
    public Builder separator(int id) {
      if (id < 0) {
        throw new IllegalArgumentException("separator must be a token id >= 0, got " + id);
      }
      this.separator = id;
      return this;
    }

    /** The id of the padded positions (default 0); the mask, not the id, tells padding apart. */
    public Builder padding(int id) {
      this.padding = id;
      return this;
    }

    /** Whether rows carry {@link PackedRow#labels() labels}, the ids shifted by one (default false). */
    public Builder shiftLabels(boolean shift) {
      this.shiftLabels = shift;
      return this;
    }

    /**
     * The documents a generated provider's {@code packed(...)} reads a step, each step packed on its
     * own (a unit of {@link PackedBatches}; default {@value Packing#DOCUMENTS_PER_UNIT}): more fill the
     * rows better at a unit's end, and are held at once.
     *
     * @throws IllegalArgumentException if {@code documents} is not positive
     */
    public Builder documentsPerUnit(int documents) {
      if (documents <= 0) {
        throw new IllegalArgumentException("documentsPerUnit must be > 0 documents, got " + documents);
      }
      this.documentsPerUnit = documents;
      return this;
    }

    /** The settings, as an immutable value. */
    public Packing build() {
      return new Packing(this);
    }
  }
}
