package dev.minibatch.text;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import dev.minibatch.shards.ShardProvider;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Batches of whole documents under a budget of {@code B} tokens, padding included, as an immutable
 * value: a batch of {@code rows} documents padded to its longest, {@code width}, holds {@code rows *
 * width <= B} positions, so batches of short documents have many rows and batches of long ones few.
 *
 * <p>The rule, per pass: the documents are read in windows of {@link Builder#window(int) W} (the
 * last may be shorter). Each window is sorted by length, stably (equal lengths keep their order),
 * and cut greedily: the next document joins the batch while {@code (rows + 1) * max(width, length)
 * <= B}, else it starts the next batch (an empty document counts as one position). With a {@link
 * Builder#seed(long) seed} the window's batches are then put in a random order: Fisher–Yates from
 * the last batch down ({@code j = random.nextInt(i + 1)}, swap {@code i} and {@code j}), {@code
 * random} being one generator for the whole pass {@code p}, {@code new SplittableRandom(new
 * SplittableRandom(seed + p * 0x9E3779B97F4A7C15L).nextLong())}, drawn window after window. Without a
 * seed they stay in length order. Windows are handed out in order. The batches are a pure function of
 * the documents, the settings, the seed and the pass.
 *
 * <p>A document longer than {@code B} is refused ({@link Overlong#REFUSE}, the default) with an
 * {@link IllegalArgumentException} naming its index and length, or cut to its first {@code B}
 * tokens ({@link Overlong#TRUNCATE}).
 */
public final class TokenBudget {
  /** The odd constant that spreads pass numbers over seeds: the golden ratio's, as SplitMix64's. */
  static final long PASS_STRIDE = 0x9E3779B97F4A7C15L;

  /** What a budget does with a document longer than {@code B}. */
  public enum Overlong {
    /** Refuse it: an {@link IllegalArgumentException} naming the document and its length. */
    REFUSE,
    /** Keep its first {@code B} tokens: a batch of one row. */
    TRUNCATE
  }

  private final int tokens;
  private final int window;
  private final boolean shuffle;
  private final long seed;
  private final Overlong overlong;
  private final int padding;

  private TokenBudget(Builder b) {
    this.tokens = b.tokens;
    this.window = b.window;
    this.shuffle = b.shuffle;
    this.seed = b.seed;
    this.overlong = b.overlong;
    this.padding = b.padding;
  }

  /**
   * A builder for batches of at most {@code tokens} positions: a window of 4 096 documents, no
   * shuffle, overlong documents refused, padding id 0.
   *
   * @throws IllegalArgumentException if {@code tokens} is not positive
   */
  public static Builder builder(int tokens) {
    return new Builder(tokens);
  }

  /** The budget {@code B}: the most positions, padding included, of a batch. */
  public int tokens() {
    return tokens;
  }

  int window() {
    return window;
  }

  boolean truncateOverlong() {
    return overlong == Overlong.TRUNCATE;
  }

  int padding() {
    return padding;
  }

  /** The batcher of pass {@code pass}, with its generator when the batches are shuffled. */
  BudgetBatcher batcher(int pass) {
    SplittableRandom random = shuffle ? new SplittableRandom(new SplittableRandom(seed + pass * PASS_STRIDE).nextLong())
        : null;
    return new BudgetBatcher(this, random);
  }

  /**
   * The batches of each pass of {@code documents} (each {@code int[]} a document's token ids, held,
   * not copied, until its window is cut; document {@code i} is the pass's {@code i}-th). Pass {@code
   * p} of the result reads pass {@code p} of the documents ({@link Reader#iterator(int)}); {@link
   * Reader#iterator()} counts the passes it started, from 0.
   */
  public Reader<BudgetBatch> batches(Reader<int[]> documents) {
    AtomicInteger passes = new AtomicInteger();
    return new Reader<>() {
      @Override
      public PipelineIterator<BudgetBatch> iterator() {
        return over(documents.iterator(), passes.getAndIncrement());
      }

      @Override
      public PipelineIterator<BudgetBatch> iterator(int pass) {
        return over(documents.iterator(pass), pass);
      }

      private PipelineIterator<BudgetBatch> over(PipelineIterator<int[]> docs, int pass) {
        long[] index = {0};
        return new Batches(batcher(pass), docs::close, b -> {
          if (!docs.hasNext()) {
            return false;
          }
          int[] doc = docs.next();
          b.add(doc, doc.length, index[0]++);
          return true;
        });
      }
    };
  }

  /**
   * The batches of each epoch of a token shard set (written by {@link TokenShards}): pass {@code p}
   * (the {@code p}-th started on this reader, from 0) reads the provider's next epoch in its order and
   * batches the column {@value TokenShards#TOKENS} of each sample, reporting its column {@value
   * TokenShards#DOC} as the document.
   *
   * @throws IllegalArgumentException if the provider has no column {@value TokenShards#TOKENS} or
   *     {@value TokenShards#DOC}
   */
  public Reader<BudgetBatch> batches(ShardProvider tokenShards) {
    TokenShards.requireColumns(tokenShards);
    return batches(new TokenDocuments(tokenShards, TokenShards.TOKENS, TokenShards.DOC));
  }

  /**
   * The batches of each epoch of any provider whose member {@code tokens} holds a variable-length
   * INT32 sequence per sample (a generated provider over a List or a stream with a {@code VARIABLE}
   * int member, a shard set's variable column, …): pass {@code p} (the {@code p}-th started on this
   * reader, from 0) reads the provider's next epoch in its order and batches each sample's tokens, its
   * own length of them, as one document whose index is the sample's index in its source.
   *
   * @throws IllegalArgumentException if the provider has no member {@code tokens}; when read, if
   *     the member has no lengths (no variable axis)
   */
  public Reader<BudgetBatch> batches(BatchProvider<? extends Batch> documents, String tokens) {
    return batches(new TokenDocuments(documents, tokens, null));
  }

  /**
   * The batches of each epoch of the documents' provider that {@code documents} builds: what a
   * generated provider's {@code tokenBudget(...)} returns, its builder's settings in {@code
   * settings}. The provider is built once, at once, with those settings but its batch size (how many
   * documents it reads a step) set to the builder's batch size when it is positive (set, or declared
   * by {@code @DataProvider}), else (none, or 0) to the window;
   * its order (shuffle, seed, buckets), its share of a sharded epoch ({@code shard(k, p)}: each
   * trainer batches its own documents) and its readers are the builder's. Closing the result closes
   * the provider.
   *
   * @throws IllegalArgumentException if the settings drop or repeat documents ({@code lastBatch}
   *     other than {@code PARTIAL}, {@code evenShards}), or as {@link #batches(BatchProvider, String)}
   */
  public BudgetBatches batches(Settings settings, Function<Settings, ? extends BatchProvider<? extends Batch>> documents,
      String tokens) {
    FrontEnd.requireEveryDocumentOnce(settings, "token-budget batches");
    Settings read = FrontEnd.documents(settings).batchSize(settings.batchSize().orElse(0) > 0
        ? settings.batchSize().getAsInt() : window).build();
    BatchProvider<? extends Batch> provider = documents.apply(read);
    try {
      return new BudgetBatches(batches(provider, tokens), provider);
    } catch (RuntimeException e) {
      provider.close();
      throw e;
    }
  }

  private Reader<BudgetBatch> batches(TokenDocuments documents) {
    AtomicInteger passes = new AtomicInteger();
    return () -> {
      BatchIterator<? extends Batch> batches = documents.iterator();
      return new Batches(batcher(passes.getAndIncrement()), batches::close, b -> {
        if (!batches.hasNext()) {
          return false;
        }
        // Rows past countSamples() pad the last batch (wrapped or constant samples): not documents.
        documents.addTo(batches.next(), b);
        return true;
      });
    };
  }

  @Override
  public String toString() {
    return "TokenBudget[" + tokens + " tokens, window " + window + (shuffle ? ", seed " + seed : ", sorted") + ", "
        + overlong + "]";
  }

  /** Feeds a batcher from a source: adds what it reads and says false once the source is done. */
  private interface Feed {
    boolean feed(BudgetBatcher batcher);
  }

  /** One pass of batches: pulls from the feed until the batcher has a batch, finishing it at the end. */
  private static final class Batches implements PipelineIterator<BudgetBatch> {
    private final BudgetBatcher batcher;
    private final Runnable closer;
    private final Feed feed;
    private boolean closed;

    Batches(BudgetBatcher batcher, Runnable closer, Feed feed) {
      this.batcher = batcher;
      this.closer = closer;
      this.feed = feed;
    }

    @Override
    public boolean hasNext() {
      while (!batcher.hasNext() && !closed) {
        boolean more;
        try {
          more = feed.feed(batcher);
        } catch (RuntimeException e) {
          // A refused document ends the pass: the source's files and threads are released at once.
          close();
          throw e;
        }
        if (!more) {
          batcher.finish();
          close();
        }
      }
      return batcher.hasNext();
    }

    @Override
    public BudgetBatch next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return batcher.next();
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        closer.run();
      }
    }
  }

  /** Settings of {@link TokenBudget}. */
  public static final class Builder {
    private final int tokens;
    private int window = 4096;
    private boolean shuffle;
    private long seed;
    private Overlong overlong = Overlong.REFUSE;
    private int padding;

    private Builder(int tokens) {
      if (tokens <= 0) {
        throw new IllegalArgumentException("tokens must be > 0, got " + tokens);
      }
      this.tokens = tokens;
    }

    /**
     * Documents sorted together (default 4 096): a larger window gives batches of more similar
     * lengths, so less padding, and holds more documents at once.
     *
     * @throws IllegalArgumentException if {@code documents} is not positive
     */
    public Builder window(int documents) {
      if (documents <= 0) {
        throw new IllegalArgumentException("window must be > 0 documents, got " + documents);
      }
      this.window = documents;
      return this;
    }

    /** Shuffle each window's batches with generators derived from {@code seed} (default: no shuffle). */
    public Builder seed(long seed) {
      this.shuffle = true;
      this.seed = seed;
      return this;
    }

    /** What to do with a document longer than the budget (default {@link Overlong#REFUSE}). */
    public Builder overlong(Overlong policy) {
      this.overlong = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** The id of padded positions (default 0); the mask, not the id, tells padding apart. */
    public Builder padding(int id) {
      this.padding = id;
      return this;
    }

    /** The settings, as an immutable value. */
    public TokenBudget build() {
      return new TokenBudget(this);
    }
  }
}
