package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.spi.EpochDraws;
import dev.minibatch.runtime.internal.engine.RowSource;
import dev.minibatch.runtime.internal.io.FileEngine;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.FileProvider;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.SampleProcessor;
import dev.minibatch.runtime.io.SampleProcessor.Sample;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Samples of HDF5 files described by a sample specification (Data Provider Core): entries of
 * {@code (file, [datasets], class name)}; row {@code i} of each listed dataset is one sample of
 * that class. Every entry lists the same number of datasets, with the same per-sample shapes; they
 * are provided under {@link Builder#names(String...)} (default: the first entry's dataset paths)
 * and the class under {@link Builder#labelName(String)} as a class index or a one-hot row.
 *
 * <pre>{@code
 * Hdf5Provider p = Hdf5Provider.builder()
 *     .add(Path.of("cats.h5"), List.of("images", "masks"), "cat")
 *     .add(Path.of("dogs.h5"), List.of("images", "masks"), "dog")
 *     .names("image", "mask").oneHot(true)
 *     .select(s -> s.skip(10).max(1000))
 *     .batchSize(64).shuffle(true).seed(7)
 *     .build();
 * }</pre>
 *
 * <p>Samples are visited in specification order (entry by entry) or shuffled, with every shared
 * sampling setting; or, when the entries give class probabilities ({@link Builder#add(Path, List,
 * String, double)}), drawn by class probability ({@link ClassSampler}: deterministic for a seed,
 * {@link Builder#wrapExamples(boolean)}, {@link Builder#epochLength(int)}), with {@code shuffle}
 * permuting the samples within each class. Each epoch's drawn order is then sharded and cut into
 * batches exactly as the shared scheduler cuts its epochs: part {@code p} of {@code k} is the
 * draws {@code [floor(p*n/k), floor((p+1)*n/k))} (an explicit seed is required, so every part
 * draws the same order), and every last-batch policy applies to the part's draws (PAD_WRAP wraps
 * to the part's first draws, PAD_CONSTANT pads with sample index -1, ROLL_OVER carries the
 * leftover draws to the front of the next epoch and needs at least one batch of draws per shard).
 *
 * <p>Data Provider Core's Readers and functions: {@link Builder#readers(int)} threads write each
 * batch's rows straight into a ring of preallocated batch buffers ({@link Builder#prefetchBuffer(int)}),
 * running the {@link Builder#process(SampleProcessor) process} functions (per sample, then per
 * class) on the way; the {@link Builder#delivery(Consumer) delivery} function sees each batch on
 * the consumer's thread; {@link #multicast(int)} serves several consumers. With a seed, the batches
 * are the same for any number of readers. Failures name the stage, the sample, the file, the
 * datasets and the row ({@link #origin(int)}).
 */
public final class Hdf5Provider extends FileProvider {
  private final FileEngine files;
  private final List<String> classNames;

  private final Part[] parts;
  private final int[] partStarts;

  private Hdf5Provider(Sampling sampling, Map<String, RowSource> data, Map<String, RowSource> labels, List<String> classNames,
      @Nullable EpochDraws order, List<Part> parts, Builder b) {
    this(new FileEngine("Hdf5Provider", data, labels, sampling, order), sampling, classNames, parts, b);
  }

  private Hdf5Provider(FileEngine files, Sampling sampling, List<String> classNames, List<Part> parts, Builder b) {
    super(files);
    // Kept for the readers and the drawn order, which only this provider has.
    this.files = files;
    this.classNames = List.copyOf(classNames);
    this.parts = parts.toArray(new Part[0]);
    this.partStarts = new int[this.parts.length];
    for (int p = 1; p < this.parts.length; p++) {
      partStarts[p] = partStarts[p - 1] + this.parts[p - 1].rows().length;
    }
    SampleProcessor process = processFor(b.process, b.processes, classNames);
    boolean readers = sampling.workers().hasReaders();
    if (process != null && !readers) {
      throw new IllegalArgumentException("a process function runs on reader threads: readers(0) leaves none");
    }
    if (readers) {
      files.useReaders(new FileEngine.Readers("hdf5-reader", process, this::origin));
    }
    if (b.delivery != null) {
      files.useDelivery(b.delivery);
    }
  }


  /** One entry's kept samples: the file, its datasets, and the file row of each kept sample. */
  record Part(java.nio.file.Path file, List<String> datasets, int classIndex, long[] rows) {}

  /** The general process function followed by the sample's class's own, or null if there is none. */
  private @Nullable SampleProcessor processFor(@Nullable SampleProcessor general, Map<String, SampleProcessor> perClass,
      List<String> classes) {
    for (String c : perClass.keySet()) {
      if (!classes.contains(c)) {
        throw new IllegalArgumentException("process function for class '" + c + "', which no entry has; classes are " + classes);
      }
    }
    if (perClass.isEmpty()) {
      return general;
    }
    SampleProcessor[] byClass = new SampleProcessor[classes.size()];
    perClass.forEach((c, f) -> byClass[classes.indexOf(c)] = f);
    return (sample, context) -> {
      Sample s = general != null ? general.apply(sample, context) : sample;
      SampleProcessor own = byClass[parts[partOf(sample.index())].classIndex()];
      return own != null ? own.apply(s, context) : s;
    };
  }

  private int partOf(int index) {
    int p = Arrays.binarySearch(partStarts, index);
    if (p < 0) {
      p = -p - 2;
    }
    while (p + 1 < partStarts.length && partStarts[p + 1] == index) {
      p++;
    }
    return p;
  }

  /**
   * Where sample {@code index} comes from: {@code "file <path>, datasets [<names>], row <r>"}, the
   * row counted in the file (before skip and filter).
   */
  public String origin(int index) {
    if (index < 0 || index >= numSamples()) {
      throw new IndexOutOfBoundsException("sample " + index + " of " + numSamples());
    }
    Part part = parts[partOf(index)];
    return "file " + part.file() + ", datasets " + part.datasets() + ", row " + part.rows()[index - partStarts[partOf(index)]];
  }

  /**
   * The drawn samples as a {@link dev.minibatch.runtime.reader.Reader}: pass {@code e} of the
   * returned reader (its {@code e}-th {@code iterator()} call, from 0) yields this provider's part
   * of epoch {@code e}'s drawn order, sample by sample — the samples of the batches of epoch
   * {@code e} before the last-batch policy (no padding, nothing carried). Each reader counts its
   * own passes; the provider's batch iteration does not move it, nor it the batches.
   *
   * @throws IllegalStateException if no entry gives a class probability (then {@link #reader()}
   *     is the samples' order)
   */
  public dev.minibatch.runtime.reader.Reader<Sample> drawnReader() {
    files.drawnPart(0);
    java.util.concurrent.atomic.AtomicInteger passes = new java.util.concurrent.atomic.AtomicInteger();
    return () -> {
      int[] indices = files.drawnPart(passes.getAndIncrement());
      return dev.minibatch.runtime.pipeline.PipelineIterator.of(java.util.Arrays.stream(indices).mapToObj(this::sample)
          .iterator());
    };
  }

  /** Class-probability draws as the provider's epoch order. */
  private static final class Drawn implements EpochDraws {
    private final java.util.function.LongFunction<ClassSampler> samplers;
    private final ClassSampler sampler;
    private final long seed;

    /** The draws of {@code samplers.apply(seed)}. */
    Drawn(java.util.function.LongFunction<ClassSampler> samplers, long seed) {
      this.samplers = samplers;
      this.sampler = samplers.apply(seed);
      this.seed = seed;
    }

    @Override
    public EpochDraws reseeded(long other) {
      return other == seed ? this : new Drawn(samplers, other);
    }

    @Override
    public int length() {
      return sampler.epochLength();
    }

    @Override
    public long seed() {
      return seed;
    }

    @Override
    public void fill(int epoch, int[] out) {
      sampler.epoch(epoch, out);
    }
  }

  /**
   * The {@link Format} of HDF5 files: axis 0 of every dataset is the sample axis; {@code Options.datasets} picks datasets (default: all with the first dataset's sample count): what
   * {@code minibatch inspect}, {@code validate} and {@code bench} use.
   */
  public static Format format() {
    return new Hdf5Format();
  }

  /**
   * Reads one whole dataset of {@code file} ({@code dataset} like {@code "group/name"}, soft links
   * followed) into an INDArray of its own element type (int8, int16, int32, int64, float32,
   * float64; float16 widened), axis 0 first: for data that is not batched, such as a held-out set
   * or class weights. The checks are the provider's: the file is read with bounded cost whatever it
   * holds, and every problem names the file and the dataset.
   *
   * @throws java.io.UncheckedIOException naming the file and the dataset if the file cannot be read
   * @throws FileFormatException naming the file and the dataset if it is missing (listing the
   *     datasets there are), a group, a scalar, not numeric, larger than the file can hold, or corrupt
   */
  public static INDArray read(Path file, String dataset) {
    return Hdf5Reader.read(file, dataset);
  }

  /**
   * Every dataset path in {@code file}, depth first, without a leading '/' (the names {@link
   * #read(Path, String)} and {@link Builder#add(Path, List, String)} take); links are not followed.
   *
   * @throws java.io.UncheckedIOException naming the file if it cannot be read
   * @throws FileFormatException naming the file if it is not HDF5 or a group cannot be read
   */
  public static List<String> datasets(Path file) {
    return Hdf5Reader.datasets(file);
  }

  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The class names by index, in order of first appearance in the specification. */
  public List<String> classNames() {
    return classNames;
  }

  /** One entry of a sample specification; probability is NaN when not given. */
  record Entry(Path file, List<String> datasets, String className, double probability) {}

  /** The class-probability draws of {@code selected}, or null when its entries give no probabilities. */
  private static @Nullable EpochDraws drawnOrder(Sampling sampling, Hdf5Specification.Selected selected,
      boolean wrapExamples, int epochLength) {
    double[] probability = selected.probabilities();
    if (probability != null) {
      if (!sampling.seeded() && sampling.numParts() > 1) {
        throw new IllegalArgumentException("class-probability draws with numParts = " + sampling.numParts()
            + " need an explicit seed: every part must draw the same order for the parts to be disjoint");
      }
      int[] counts = selected.classCounts();
      boolean shuffle = sampling.shuffle();
      return new Drawn(seed -> new ClassSampler(counts, probability, wrapExamples, shuffle, seed, epochLength),
          sampling.seed());
    } else if (wrapExamples || epochLength != -1) {
      throw new IllegalArgumentException("wrapExamples and epochLength need class probabilities: add(file, datasets, "
          + "className, probability)");
    }
    return null;
  }

  /**
   * The sample selection of {@link Builder#select}: applied to every entry while its files are read,
   * in the order skip, filter, max.
   */
  public static final class Select {
    private int skip;
    private int max = Integer.MAX_VALUE;
    private @Nullable Predicate<Sample> filter;
    private final Map<String, Predicate<Sample>> filters = new LinkedHashMap<>();

    private Select() {}

    /** Skip the first {@code n} samples of every entry (Data Provider Core {@code skip}); default 0. */
    public Select skip(int n) {
      this.skip = Check.atLeast("skip", n, 0);
      return this;
    }

    /** Take at most {@code n} samples of every entry, after skip and filter (Data Provider Core {@code max}). */
    public Select max(int n) {
      this.max = Check.atLeast("max", n, 1);
      return this;
    }

    /** Keep only the samples {@code keep} accepts. */
    public Select filter(Predicate<Sample> keep) {
      this.filter = keep;
      return this;
    }

    /** Keep only the samples of {@code className} that {@code keep} accepts (after the general filter). */
    public Select filter(String className, Predicate<Sample> keep) {
      filters.put(className, keep);
      return this;
    }
  }

  /** Builds {@link Hdf5Provider}s; the sampling settings are {@link ProviderBuilder}'s. */
  public static final class Builder extends ProviderBuilder<Builder> {
    private final List<Entry> entries = new ArrayList<>();
    private @Nullable List<String> names;
    private String labelName = "softmax_label";
    private boolean oneHot;
    private boolean wrapExamples;
    private int epochLength = -1;
    private @Nullable SampleProcessor process;
    private final Map<String, SampleProcessor> processes = new LinkedHashMap<>();
    private @Nullable Consumer<? super NamedBatch> delivery;
    private final Select select = new Select();

    private Builder() {}

    /**
     * The process function for every sample (Data Provider Core {@code process}), run on the reader
     * threads; see {@link SampleProcessor}.
     */
    public Builder process(SampleProcessor process) {
      this.process = process;
      return this;
    }

    /** The process function for the samples of {@code className}, run after the general one. */
    public Builder process(String className, SampleProcessor process) {
      processes.put(className, process);
      return this;
    }

    /**
     * The delivery function (Data Provider Core {@code delivery}): sees every batch on the
     * consumer's thread just before the iterator returns it, and may change it in place.
     */
    public Builder delivery(Consumer<? super NamedBatch> delivery) {
      this.delivery = delivery;
      return this;
    }

    /** Adds an entry: the rows of {@code datasets} in {@code file} are samples of {@code className}. */
    public Builder add(Path file, List<String> datasets, String className) {
      return add(file, datasets, className, Double.NaN);
    }

    /**
     * Adds an entry with the sampling probability of its class (the specification's fourth
     * element): once any entry has one, every entry must, entries of one class must agree, and
     * batches are drawn by class probability (see {@link ClassSampler}) instead of visiting the
     * samples in specification order. Probabilities are weights: they are normalised.
     */
    public Builder add(Path file, List<String> datasets, String className, double probability) {
      if (datasets.isEmpty()) {
        throw new IllegalArgumentException(file + ": an entry needs at least one dataset");
      }
      entries.add(new Entry(file, List.copyOf(datasets), className, probability));
      return this;
    }

    /**
     * With class-probability draws, start a class again from its first sample when it is used up
     * (Data Provider Core {@code wrap_examples}); default false: a used-up class leaves the draw,
     * so an epoch holds every sample once.
     */
    public Builder wrapExamples(boolean wrap) {
      this.wrapExamples = wrap;
      return this;
    }

    /** With {@link #wrapExamples(boolean)}, the draws per epoch; default the number of samples. */
    public Builder epochLength(int draws) {
      this.epochLength = Check.atLeast("epochLength", draws, 1);
      return this;
    }

    /** The provided names of the datasets, in entry order; default the first entry's dataset paths. */
    public Builder names(String... names) {
      this.names = List.of(names);
      return this;
    }

    /** The label name; default {@code "softmax_label"}. */
    public Builder labelName(String name) {
      this.labelName = name;
      return this;
    }

    /** Labels as one-hot float32 rows (batch, classes) instead of float32 class indices (batch). */
    public Builder oneHot(boolean oneHot) {
      this.oneHot = oneHot;
      return this;
    }

    /**
     * Which samples of each entry are read (Data Provider Core's {@code skip}, {@code max} and
     * {@code filter}), e.g. {@code select(s -> s.skip(10).max(1000))}; default: all.
     */
    public Builder select(Consumer<Select> settings) {
      settings.accept(select);
      return this;
    }

    /**
     * Reads the datasets and builds the provider.
     *
     * @throws FileFormatException naming file and dataset for missing datasets, different sample
     *     counts, undecodable filters, or shapes that differ between entries
     * @throws java.io.UncheckedIOException naming a missing file
     */
    public Hdf5Provider build() {
      // With a process function, readers default to one per processor: the function runs on them.
      Settings given = settings();
      Sampling sampling = Sampling.resolve(process == null && processes.isEmpty() ? given
          : Settings.builder().readers(Runtime.getRuntime().availableProcessors()).build().toBuilder().apply(given).build());
      Hdf5Specification.Selected selected = new Hdf5Specification(entries, names, labelName, oneHot, select.skip,
          select.max, select.filter, select.filters).read();
      EpochDraws order = drawnOrder(sampling, selected, wrapExamples, epochLength);
      return new Hdf5Provider(sampling, selected.data(), selected.label(), selected.classes(), order, selected.parts(), this);
    }
  }
}
