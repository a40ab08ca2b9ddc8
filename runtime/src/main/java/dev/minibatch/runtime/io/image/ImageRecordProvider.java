package dev.minibatch.runtime.io.image;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.LastBatch;
import dev.minibatch.Role;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.spi.EngineProvider;
import dev.minibatch.runtime.spi.RangedFile;
import dev.minibatch.runtime.spi.RemoteFiles;
import dev.minibatch.runtime.engine.Multicast;
import dev.minibatch.runtime.internal.io.EngineMulticast;
import dev.minibatch.runtime.internal.io.Locations;
import dev.minibatch.runtime.io.FileBuilder;
import dev.minibatch.runtime.internal.settings.Sampling;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordProblem;
import dev.minibatch.shape.Shape;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Images from RecordIO files or image folders, decoded by OpenCV, augmented and normalised as
 * MXNet's {@code ImageRecordIter} does, written straight into preallocated batches by reader
 * threads: data {@code "data"} float32 (or uint8) of shape {@code (batch, c, h, w)} (layout NCHW,
 * MXNet's) or {@code (batch, h, w, c)} (NHWC on request), RGB(A) channel order; label {@code
 * "softmax_label"} float32 of shape {@code (batch)} for label width 1, else {@code (batch,
 * labelWidth)}.
 *
 * <pre>{@code
 * ImageRecordProvider train = ImageRecordProvider.builder()
 *     .pathImgrec(Path.of("train.rec"))
 *     .dataShape(3, 224, 224)
 *     .batchSize(64).shuffle(true).seed(7)
 *     .augment(a -> a.resize(256).randCrop(true).randMirror(true))
 *     .normalize(n -> n.meanRgb(123.68f, 116.28f, 103.53f).stdRgb(58.395f, 57.12f, 57.375f))
 *     .preprocessThreads(4)
 *     .build();
 * }</pre>
 *
 * <p>Every parameter of ImageRecordIter is a builder method named in lowerCamelCase, with MXNet's
 * default, and so are torchvision's random resized crop, colour jitter and random gray
 * (docs/images.md lists them with their meaning): the source and format settings on {@link
 * Builder}, the augmentations in the {@link Augment} group and the mean, std and scale in the {@link
 * Normalize} group. The sampling settings are the engine's,
 * as for every provider: shuffle and seed, {@code numParts}/{@code partIndex} (or {@code shard}),
 * every last-batch policy ({@code roundBatch(true)}, MXNet's default, pads the last batch with the
 * next epoch's first images), resumable state, and {@link #multicast(int)} for several consumers.
 *
 * <p>Random augmentation draws from (seed, epoch, sample index) alone, so a seeded epoch gives
 * bit-identical batches for any {@code preprocessThreads}. Bad records are {@link
 * dev.minibatch.runtime.io.FileFormatException}s naming the file, the record, its offset and the
 * image's id; on a reader thread they reach the consumer as the cause of a {@link
 * dev.minibatch.runtime.pipeline.StageFailedException}.
 */
public final class ImageRecordProvider extends EngineProvider<NamedBatch> {
  /** The data name (MXNet's). */
  public static final String DATA_NAME = "data";
  /** The label name (MXNet's). */
  public static final String LABEL_NAME = "softmax_label";

  private final ImageSource source;
  private final BatchEngine<NamedBatch> engine;
  private final List<RecordProblem> problems;
  /** What ImageGrid needs to undo the normalisation for display. */
  private final Augmentation.Normalization normalization;
  private final float @Nullable [] meanImage;

  private ImageRecordProvider(Builder b, Sampling sampling, ImageSource source, Augmentation aug,
      float @Nullable [] meanImage, List<RecordProblem> problems) {
    this.source = source;
    this.problems = problems;
    this.normalization = aug.normalization();
    this.meanImage = meanImage;
    ImageOutput out = b.output();
    Shape sample = out.shape();
    String layout = out.layout();
    DType dtype = out.dtype();
    int labelWidth = source.labelWidth();
    Shape labelShape = labelWidth == 1 ? Shape.scalar() : Shape.of(labelWidth);
    String dataName = b.data();
    String labelName = b.label();
    ImageRowWriter rows = new ImageRowWriter(source, aug, out.channelsLast(), out.uint8(), meanImage, b.reducedDecode);
    this.engine = BatchEngine.<NamedBatch>builder(getClass().getSimpleName(), source.size(), sampling)
        .layout(n -> BatchLayout.of(
            List.of(DataDesc.builder().name(dataName).shape(sample.withBatch(n)).dtype(dtype).layout(layout)
                .role(Role.DATA).build()),
            List.of(DataDesc.of(labelName, n, labelShape, DType.FLOAT32, Role.LABEL))))
        .batches(NamedBatch::new)
        .rows(rows)
        .readers(imageReaders(sampling))
        .build();
  }

  /**
   * Opens the builder's source, loads or computes the mean image and builds the provider; the source
   * is closed again if any of that fails.
   */
  private static ImageRecordProvider open(Builder b, Sampling sampling, Augmentation aug) {
    OpenCv.require();
    ImageSource source;
    List<RecordProblem> skipped = List.of();
    if (b.imageFolder != null) {
      if (b.pathImgrec != null || b.pathImglist != null || b.pathImgidx != null || b.remoteImgrec != null
          || b.remoteImglist != null || b.remoteImgidx != null) {
        throw new IllegalArgumentException("ImageRecordProvider: give either imageFolder or pathImgrec (with "
            + "pathImgidx/pathImglist), not both");
      }
      if (b.labelWidth != 1) {
        throw new IllegalArgumentException("ImageRecordProvider: an image folder gives one label per image; "
            + "labelWidth is " + b.labelWidth);
      }
      source = new FolderImages(b.imageFolder);
    } else if (b.pathImgrec != null || b.remoteImgrec != null) {
      RecordIOFile rec = openRecords(b);
      skipped = rec.problems();
      try {
        String idx = b.remoteImgidx != null ? b.remoteImgidx : b.pathImgidx != null ? b.pathImgidx.toString() : null;
        String lst = b.remoteImglist != null ? b.remoteImglist : b.pathImglist != null ? b.pathImglist.toString() : null;
        source = new RecordImages(rec, idx, b.labelWidth, lst, imageList(b));
      } catch (RuntimeException e) {
        rec.close();
        throw e;
      }
    } else {
      throw new IllegalStateException("ImageRecordProvider: set pathImgrec(path) or imageFolder(path)");
    }
    try {
      // Both sources fail on an empty file or folder, naming it; what is left is the settings.
      b.requireOneBatchPerPart(sampling, source.size());
      Path meanImg = aug.normalization().meanImg();
      float[] meanImage = meanImg == null ? null : MeanImage.loadOrCompute(meanImg, source, aug);
      return new ImageRecordProvider(b, sampling, source, aug, meanImage, skipped);
    } catch (RuntimeException | Error e) {
      source.close();
      throw e;
    }
  }

  /**
   * The builder's record file with its index, local or remote (read by ranges through its {@link
   * RemoteFiles}); what is opened is closed again if the rest fails.
   */
  private static RecordIOFile openRecords(Builder b) {
    String rec = b.remoteImgrec;
    String idx = b.remoteImgidx;
    RangedFile recFile = rec == null ? null : Locations.open(rec, b.remoteFiles, "ImageRecordProvider.pathImgrec");
    RangedFile idxFile = null;
    try {
      idxFile = idx == null ? null : Locations.open(idx, b.remoteFiles, "ImageRecordProvider.pathImgidx");
      RecordIOFile.Builder r = recFile != null ? RecordIOFile.builder(recFile)
          : RecordIOFile.builder(java.util.Objects.requireNonNull(b.pathImgrec, "pathImgrec"));
      if (idxFile != null) {
        r.rangedIndex(idxFile);
      } else {
        r.index(b.pathImgidx);
      }
      return r.skipCorrupt(b.skipCorrupt).problems(b.problems).open();
    } catch (RuntimeException | Error e) {
      if (recFile != null) {
        recFile.close();
      }
      if (idxFile != null) {
        idxFile.close();
      }
      throw e;
    }
  }

  /** The builder's image list, local or remote (read whole), or null. */
  private static @Nullable ImageList imageList(Builder b) {
    String remote = b.remoteImglist;
    if (remote != null) {
      try (RangedFile f = Locations.open(remote, b.remoteFiles, "ImageRecordProvider.pathImglist")) {
        return ImageList.read(remote, Locations.lines(f, ImageList.LINES), b.labelWidth);
      }
    }
    return b.pathImglist == null ? null : ImageList.read(b.pathImglist, b.labelWidth);
  }

  /**
   * The {@link Format} of MXNet RecordIO image records ({@code .rec}, with the {@code .idx} beside it when there is one), read at the first image's size and channels with the first record's label width: what
   * {@code minibatch inspect}, {@code validate} and {@code bench} use.
   */
  public static Format format() {
    return new RecordIOFormat();
  }
  /**
   * The {@link Format} of image folders (one sub-folder of images per class, what {@link
   * Builder#imageFolder(Path)} and im2rec read): {@code minibatch inspect photos/} shows the classes
   * and image counts, {@code validate} decodes every image and names each one that does not decode or is a corrupt JPEG,
   * {@code bench} reads it at the first image's size.
   */
  public static Format folderFormat() {
    return new ImageFolderFormat();
  }


  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  protected BatchEngine<NamedBatch> engine() {
    return engine;
  }

  /**
   * The next epoch's batches read by {@code consumers} consumers through a {@link Multicast}
   * (Data Provider Core's Watcher), as for the other file providers: each consumer sees every batch
   * once, in order, and a batch buffer goes back to the reader threads only after every consumer has
   * released it (moved past it or closed), so the readers run up to {@code prefetchBuffer} batches
   * ahead of the slowest consumer. The epoch ends for all when every consumer has closed or finished.
   *
   * @throws IllegalArgumentException if {@code consumers} is below 1
   */
  public Multicast<NamedBatch> multicast(int consumers) {
    return EngineMulticast.of(engine, consumers);
  }

  /** The class names of an image-folder source, in label order (label i is {@code classes().get(i)}); empty for records. */
  public List<String> classes() {
    return source.classes();
  }

  /** The mean, std and scale the float data was normalised with ({@link ImageGrid} undoes them). */
  Augmentation.Normalization normalization() {
    return normalization;
  }

  /** The mean image subtracted per value, (c, h, w) in RGB order, or null. */
  float @Nullable [] meanImage() {
    return meanImage;
  }

  /** The corrupt stretches of the record file that were skipped ({@link Builder#skipCorrupt(boolean)}); else empty. */
  public List<RecordProblem> skipped() {
    return problems;
  }

  /** Stops the reader threads and closes the record file. */
  @Override
  public void close() {
    try {
      super.close();
    } finally {
      source.close();
    }
  }

  /** The reader threads that decode and augment: images are never decoded on the consumer's thread. */
  private static String imageReaders(Sampling sampling) {
    if (!sampling.workers().hasReaders()) {
      throw new IllegalArgumentException("readers must be >= 1: images are decoded and augmented on reader threads"
          + " (MXNet preprocess_threads), got 0");
    }
    return "image";
  }

  /** The image settings of {@code b}, checked. */
  private static Augmentation augmentation(Builder b) {
    ImageOutput out = b.output();
    require(b.labelWidth >= 1, "labelWidth must be >= 1, got " + b.labelWidth);
    return augmentation(out, b.augment, b.normalize);
  }

  /** The image settings of {@code out} with these augmentation and normalisation groups: what {@link ImageDecoder} decodes by. */
  static Augmentation augmentation(ImageOutput out, Augment augment, Normalize normalize) {
    return new Augmentation(out.channels(), out.height(), out.width(), augment.settings(out.channels()),
        normalize.settings());
  }

  /**
   * Builds {@link ImageRecordProvider}s. The parameters are ImageRecordIter's, in lowerCamelCase,
   * with its defaults: the source and format here, the rest in {@link #augment(Consumer)} and {@link
   * #normalize(Consumer)}; the sampling settings are {@link ProviderBuilder}'s. {@code batchSize},
   * {@code dataShape} and one source ({@link #pathImgrec(Path)} or {@link #imageFolder(Path)}) are required.
   */
  public static final class Builder extends FileBuilder<Builder> {
    // The names for the provider's constructor: the base class keeps its accessors protected.
    private String data() {
      return dataName();
    }

    private String label() {
      return labelName();
    }

    private @Nullable Path pathImgrec;
    private @Nullable Path pathImgidx;
    private @Nullable Path pathImglist;
    // The same files at locations of other file systems (at most one of each pair is set).
    private @Nullable String remoteImgrec;
    private @Nullable String remoteImgidx;
    private @Nullable String remoteImglist;
    private @Nullable RemoteFiles remoteFiles;
    private @Nullable Path imageFolder;
    private int labelWidth = 1;
    private int channels;
    private int height;
    private int width;
    private boolean skipCorrupt;
    private Consumer<RecordProblem> problems = p -> {};
    private boolean channelsLast;
    private DType dtype = DType.FLOAT32;
    private boolean reducedDecode = true;
    private final Augment augment = new Augment();
    private final Normalize normalize = new Normalize();

    /** MXNet's {@code round_batch = true}: the last batch is padded with the next epoch's first images. */
    private Builder() {
      super(Settings.builder().lastBatch(LastBatch.PAD_CONTINUE).readers(4).prefetchBuffer(4).build());
    }

    /** The RecordIO file of image records (MXNet {@code path_imgrec}). One source is required. */
    public Builder pathImgrec(Path rec) {
      this.pathImgrec = rec;
      this.remoteImgrec = null;
      return this;
    }

    /**
     * The RecordIO file at {@code location}: a local path, or a URI of another file system ({@code
     * hdfs://namenode/data/train.rec}, {@code s3a://bucket/train.rec}) read by byte ranges, only the
     * records the epoch's order needs, through {@link #remoteFiles(RemoteFiles)} or the {@link
     * RemoteFiles} on the class path that reads its scheme (add minibatch-shards). The batches are
     * those of the same file read locally (docs/images.md, "Remote record files").
     */
    public Builder pathImgrec(String location) {
      Path local = Locations.local(location);
      this.pathImgrec = local;
      this.remoteImgrec = local == null ? location : null;
      return this;
    }

    /** The record file's {@code .idx} index (MXNet {@code path_imgidx}), to find records without a walk, in its order. */
    public Builder pathImgidx(@Nullable Path idx) {
      this.pathImgidx = idx;
      this.remoteImgidx = null;
      return this;
    }

    /**
     * The {@code .idx} index at {@code location}, a local path or a remote URI as {@link
     * #pathImgrec(String)} takes; read whole when the provider is built. Give it with a remote record
     * file: without one the record file is walked from start to end before the first batch.
     */
    public Builder pathImgidx(@Nullable String location) {
      Path local = location == null ? null : Locations.local(location);
      this.pathImgidx = local;
      this.remoteImgidx = local == null ? location : null;
      return this;
    }

    /**
     * An im2rec {@code .lst} file (MXNet {@code path_imglist}) whose labels replace the records', by
     * image id: every record's id needs a line of exactly {@code labelWidth} labels.
     */
    public Builder pathImglist(@Nullable Path lst) {
      this.pathImglist = lst;
      this.remoteImglist = null;
      return this;
    }

    /** The {@code .lst} file at {@code location}, a local path or a remote URI as {@link #pathImgrec(String)} takes. */
    public Builder pathImglist(@Nullable String location) {
      Path local = location == null ? null : Locations.local(location);
      this.pathImglist = local;
      this.remoteImglist = local == null ? location : null;
      return this;
    }

    /**
     * What reads the remote locations given to {@link #pathImgrec(String)}, {@link #pathImgidx(String)}
     * and {@link #pathImglist(String)}, e.g. minibatch-shards' {@code HadoopFiles} with a Hadoop
     * configuration (endpoints, credentials); default the first {@link RemoteFiles} on the class path
     * (found with {@link java.util.ServiceLoader}) that reads the location's scheme.
     */
    public Builder remoteFiles(RemoteFiles files) {
      this.remoteFiles = files;
      return this;
    }

    /**
     * A folder with one sub-folder of images per class, instead of a record file (torchvision's
     * ImageFolder): classes in sorted order get labels 0, 1, ..., files in sorted order;
     * {@link ImageRecordProvider#classes()} names them.
     */
    public Builder imageFolder(Path root) {
      this.imageFolder = root;
      return this;
    }

    /** Labels per image (MXNet {@code label_width}); default 1. */
    public Builder labelWidth(int labelWidth) {
      this.labelWidth = labelWidth;
      return this;
    }

    /**
     * The output image shape (MXNet {@code data_shape}): channels 1 (decoded as grayscale), 3
     * (colour) or 4 (with alpha; an image without one gets 255), height and width. Required.
     */
    public Builder dataShape(int channels, int height, int width) {
      this.channels = channels;
      this.height = height;
      this.width = width;
      return this;
    }

    /**
     * MXNet {@code preprocess_threads}: the reader threads that decode and augment, {@link
     * #readers(int)} under MXNet's name; default 4, with {@link #prefetchBuffer(int)} 4 (MXNet {@code
     * prefetch_buffer}).
     */
    public Builder preprocessThreads(int threads) {
      return readers(threads);
    }

    /** MXNet {@code num_parts} and {@code part_index}: this provider reads part {@code partIndex} of {@code numParts}. */
    public Builder numParts(int numParts, int partIndex) {
      return shard(numParts, partIndex);
    }

    /**
     * MXNet {@code round_batch}: true (the default) pads the last batch with the next epoch's first
     * images, which that epoch then skips ({@link LastBatch#PAD_CONTINUE}); false keeps a padded
     * last batch ({@link LastBatch#PAD_CONSTANT}). {@link #lastBatch} chooses any other policy.
     */
    public Builder roundBatch(boolean roundBatch) {
      return lastBatch(roundBatch ? LastBatch.PAD_CONTINUE : LastBatch.PAD_CONSTANT);
    }

    /**
     * Skip corrupt stretches of the record file, resuming at the next record (dmlc's splitter),
     * instead of failing when it is opened; default false. Skipped stretches are reported to
     * {@code listener} and by {@link ImageRecordProvider#skipped()}. Undecodable images inside
     * well-framed records are still errors.
     */
    public Builder skipCorrupt(boolean skip, Consumer<RecordProblem> listener) {
      this.skipCorrupt = skip;
      this.problems = listener;
      return this;
    }

    /** Sets {@link Augment} options, e.g. {@code augment(a -> a.randCrop(true))}; calls add up, the last value wins. */
    public Builder augment(Consumer<Augment> options) {
      options.accept(augment);
      return this;
    }

    /** Sets {@link Normalize} options, e.g. {@code normalize(n -> n.scale(1f / 255))}; calls add up, the last value wins. */
    public Builder normalize(Consumer<Normalize> options) {
      options.accept(normalize);
      return this;
    }

    /** Channels last, (batch, h, w, c) with layout NHWC, instead of MXNet's NCHW; default false. */
    public Builder channelsLast(boolean channelsLast) {
      this.channelsLast = channelsLast;
      return this;
    }

    /**
     * Decode a JPEG at 1/2, 1/4 or 1/8 of its size (libjpeg's DCT scaling, through OpenCV's {@code
     * IMREAD_REDUCED_*}) when the augmentation shrinks it anyway: with {@code resize}, a random
     * resized crop or a random crop size, and no affine step, padding or alpha channel, the crop is
     * drawn from the size in the JPEG's header before the decode, and the largest reduction is
     * taken at which the crop still has at least the output's pixels on both axes. The crops and
     * every other draw are the same as with a full decode; the pixels differ by the reduced
     * decode's filtering (docs/images.md, "Reduced decoding", gives the measured difference).
     * Other formats, and settings that need the full-size pixels, decode at full size. Default
     * true.
     */
    public Builder reducedDecode(boolean reduced) {
      this.reducedDecode = reduced;
      return this;
    }

    /** FLOAT32 (default, ImageRecordIter) or UINT8 (ImageRecordUInt8Iter: raw pixels, mirrored and cropped). */
    public Builder dtype(DType dtype) {
      this.dtype = ImageOutput.requireImageType(dtype);
      return this;
    }

    private ImageOutput output() {
      return ImageOutput.of("ImageRecordProvider", channels, height, width, channelsLast, dtype);
    }

    /**
     * MXNet's round_batch fills the last batch from the next epoch, so this part must hold a batch;
     * the engine checks it too, but cannot name the file or the settings to change.
     *
     * @throws IllegalArgumentException naming the source, its size, the part's and the batch size;
     *     or when this part would be empty
     */
    private void requireOneBatchPerPart(Sampling sampling, int images) {
      int part = sampling.shardSize(images);
      int batch = sampling.batchRows(part);
      if (part > 0 && (sampling.lastBatch() != LastBatch.PAD_CONTINUE || part >= batch)) {
        return;
      }
      String source = "ImageRecordProvider: " + (imageFolder != null ? imageFolder : pathImgrec) + " holds " + images
          + " " + (imageFolder != null ? "image" : "record") + (images == 1 ? "" : "s");
      if (part == 0) {
        throw new IllegalArgumentException(source + ", none of them in part " + sampling.partIndex() + " of "
            + sampling.numParts() + "; use at most " + images + " parts, or evenShards(true)");
      }
      String held = source + (sampling.numParts() == 1 ? ""
          : ", " + part + " of them in part " + sampling.partIndex() + " of " + sampling.numParts());
      throw new IllegalArgumentException(held + ", fewer than batchSize " + batch + "; roundBatch(true), the default "
          + "(LastBatch.PAD_CONTINUE), fills the last batch from the next epoch and needs a full batch per part: set "
          + "batchSize(" + part + ") or less, or roundBatch(false) to pad the last batch instead (or another lastBatch "
          + "policy)");
    }

    /**
     * Checks the settings, opens the source and builds the provider (and the mean image, when
     * {@link Normalize#meanImg(Path)} names a file that does not exist yet).
     *
     * @throws IllegalStateException for missing settings, or OpenCV's natives missing
     * @throws IllegalArgumentException for settings out of range or contradicting each other, or
     *     a batch size larger than the file's part under {@code roundBatch(true)}
     * @throws dev.minibatch.runtime.io.FileFormatException naming the file (and record or line) for
     *     a corrupt record file, index or list, one that holds no records or lines, a record 0 (or
     *     first list line) whose label count is not {@code labelWidth}, or an image folder without
     *     images
     */
    public ImageRecordProvider build() {
      return open(this, Sampling.resolve(settings()), augmentation(this));
    }

  }

  /**
   * The augmentation options of ImageRecordIter (MXNet's default augmenter plus its contrast,
   * illumination and PCA noise), set through {@link Builder#augment(Consumer)}: resize, crops,
   * padding, the affine step, HSL jitter, interpolation and mirrors. Each of those methods is
   * MXNet's parameter in lowerCamelCase with its default. Beside them, torchvision's
   * RandomResizedCrop ({@link #randomResizedCrop(boolean)}, {@link #randomAreaRange(float, float)},
   * {@link #randomRatioRange(float, float)}), ColorJitter ({@link #brightness(float)}, {@link
   * #contrast(float)}, {@link #saturation(float)}, {@link #hue(float)}) and RandomGrayscale ({@link
   * #randomGray(float)}), with torchvision's meaning and defaults. {@link Builder#build()} checks
   * them all.
   */
  public static final class Augment {
    // torchvision's RandomResizedCrop defaults: scale (0.08, 1), ratio (3/4, 4/3).
    private static final float DEFAULT_MIN_AREA = 0.08f;
    private static final float DEFAULT_MIN_RATIO = 3f / 4;
    private static final float DEFAULT_MAX_RATIO = 4f / 3;

    private int resize = -1;
    private int pad;
    private boolean randCrop;
    private int cropYStart = -1;
    private int cropXStart = -1;
    private int maxCropSize = -1;
    private int minCropSize = -1;
    private float maxRotateAngle;
    private int rotate = -1;
    private float maxAspectRatio;
    private float maxShearRatio;
    private float maxRandomScale = 1;
    private float minRandomScale = 1;
    private float maxImgSize = 1e10f;
    private float minImgSize;
    private int randomH;
    private int randomS;
    private int randomL;
    private float maxRandomContrast;
    private float maxRandomIllumination;
    private float pcaNoise;
    private int fillValue = 255;
    private int interMethod = 1;
    private boolean mirror;
    private boolean randMirror;
    private boolean randomResizedCrop;
    private float minArea = DEFAULT_MIN_AREA;
    private float maxArea = 1;
    private float minRatio = DEFAULT_MIN_RATIO;
    private float maxRatio = DEFAULT_MAX_RATIO;
    private final float[] brightness = {1, 1};
    private final float[] contrast = {1, 1};
    private final float[] saturation = {1, 1};
    private final float[] hue = {0, 0};
    private float randomGray;


    /** MXNet's defaults: no augmentation. */
    Augment() {}

    /** Resize the shorter side to this many pixels before the other augmentations (MXNet {@code resize}); default -1, off. */
    public Augment resize(int shorterSide) {
      this.resize = shorterSide;
      return this;
    }

    /** Crop at a random position instead of the centre (MXNet {@code rand_crop}); default false. */
    public Augment randCrop(boolean randCrop) {
      this.randCrop = randCrop;
      return this;
    }

    /** Crop from this row instead of the centre (MXNet {@code crop_y_start}); default -1, off. */
    public Augment cropYStart(int y) {
      this.cropYStart = y;
      return this;
    }

    /** Crop from this column instead of the centre (MXNet {@code crop_x_start}); default -1, off. */
    public Augment cropXStart(int x) {
      this.cropXStart = x;
      return this;
    }

    /**
     * Rotate by a random whole number of degrees in [-v, v], positive counter-clockwise (MXNet {@code
     * max_rotate_angle}); default 0.
     */
    public Augment maxRotateAngle(float degrees) {
      this.maxRotateAngle = degrees;
      return this;
    }

    /**
     * Rotate every image by this many degrees counter-clockwise, overriding maxRotateAngle (MXNet {@code
     * rotate}); default -1, off.
     */
    public Augment rotate(int degrees) {
      this.rotate = degrees;
      return this;
    }

    /**
     * Stretch by a random aspect ratio r in [1 - v, 1 + v] (MXNet {@code max_aspect_ratio}): width
     * scaled by 2/(1+r), height by 2r/(1+r), so width/height changes by 1/r, about the centre on a
     * canvas of unchanged size; default 0.
     */
    public Augment maxAspectRatio(float v) {
      this.maxAspectRatio = v;
      return this;
    }

    /** Shear (x, y) to (x + m y, y) with m random in [-v, v] (MXNet {@code max_shear_ratio}); default 0. */
    public Augment maxShearRatio(float v) {
      this.maxShearRatio = v;
      return this;
    }

    /**
     * Crop a random square of side in [minCropSize, maxCropSize] and resize it to the output (MXNet
     * {@code max_crop_size}); default -1, off: crop the output size directly.
     */
    public Augment maxCropSize(int size) {
      this.maxCropSize = size;
      return this;
    }

    /** The smallest random crop side (MXNet {@code min_crop_size}); default -1. */
    public Augment minCropSize(int size) {
      this.minCropSize = size;
      return this;
    }

    /** Scale by a random s in [minRandomScale, maxRandomScale] in the affine step (MXNet {@code max_random_scale}); default 1. */
    public Augment maxRandomScale(float s) {
      this.maxRandomScale = s;
      return this;
    }

    /** The lower end of the random scale (MXNet {@code min_random_scale}); default 1. */
    public Augment minRandomScale(float s) {
      this.minRandomScale = s;
      return this;
    }

    /** Clamp width and height after the affine step to at most this (MXNet {@code max_img_size}); default 1e10. */
    public Augment maxImgSize(float size) {
      this.maxImgSize = size;
      return this;
    }

    /** Clamp width and height after the affine step to at least this (MXNet {@code min_img_size}); default 0. */
    public Augment minImgSize(float size) {
      this.minImgSize = size;
      return this;
    }

    /** Add a random integer in [-v, v] to the hue, OpenCV's 0..180 scale (MXNet {@code random_h}); default 0. */
    public Augment randomH(int v) {
      this.randomH = v;
      return this;
    }

    /** Add a random integer in [-v, v] to the saturation, 0..255 (MXNet {@code random_s}); default 0. */
    public Augment randomS(int v) {
      this.randomS = v;
      return this;
    }

    /** Add a random integer in [-v, v] to the lightness, 0..255 (MXNet {@code random_l}); default 0. */
    public Augment randomL(int v) {
      this.randomL = v;
      return this;
    }

    /** The pixel value of borders made by the affine step and padding (MXNet {@code fill_value}); default 255. */
    public Augment fillValue(int v) {
      this.fillValue = v;
      return this;
    }

    /**
     * The interpolation (MXNet {@code inter_method}): 0 nearest, 1 bilinear (default), 2 bicubic, 3
     * area, 4 Lanczos, 9 automatic (bicubic to enlarge, area to shrink, bilinear otherwise), 10 a
     * random one of 0..4 per resize.
     */
    public Augment interMethod(int method) {
      this.interMethod = method;
      return this;
    }

    /** Pad every side by this many pixels of fillValue before cropping (MXNet {@code pad}); default 0. */
    public Augment pad(int pixels) {
      this.pad = pixels;
      return this;
    }

    /** Mirror every image left to right (MXNet {@code mirror}); default false. */
    public Augment mirror(boolean mirror) {
      this.mirror = mirror;
      return this;
    }

    /** Mirror each image with probability 1/2 (MXNet {@code rand_mirror}); default false. */
    public Augment randMirror(boolean randMirror) {
      this.randMirror = randMirror;
      return this;
    }

    /** Multiply (pixel - mean) by a random contrast in [1 - v, 1 + v] (MXNet {@code max_random_contrast}); default 0. */
    public Augment maxRandomContrast(float v) {
      this.maxRandomContrast = v;
      return this;
    }

    /** Add a random illumination in [-v, v] (times scale / std) (MXNet {@code max_random_illumination}); default 0. */
    public Augment maxRandomIllumination(float v) {
      this.maxRandomIllumination = v;
      return this;
    }

    /**
     * AlexNet-style lighting noise (MXNet {@code pca_noise}): add ImageNet's RGB principal
     * components weighted by their eigenvalues times normal draws of standard deviation v; default
     * 0. Colour images only.
     */
    public Augment pcaNoise(float v) {
      this.pcaNoise = v;
      return this;
    }

    /**
     * torchvision's RandomResizedCrop in place of the crop step: crop a random box whose area is a
     * fraction in {@link #randomAreaRange(float, float)} of the image's and whose width/height ratio
     * is in {@link #randomRatioRange(float, float)} (drawn uniformly in log space), up to 10 attempts
     * at a uniform position, else the centre crop with its ratio clamped into the range; then resize
     * it to the output's height and width with {@link #interMethod(int)}. It runs on the image after
     * resize, the affine step and pad, and replaces randCrop, cropYStart/cropXStart and
     * minCropSize/maxCropSize, which {@link Builder#build()} refuses beside it. MXNet 1.3+ calls it
     * {@code random_resized_crop}. Default false.
     */
    public Augment randomResizedCrop(boolean on) {
      this.randomResizedCrop = on;
      return this;
    }

    /**
     * The range of the random resized crop's area as a fraction of the image's area, 0 < min <= max
     * <= 1 (torchvision's {@code scale}; MXNet 1.3+'s {@code min_random_area}, {@code
     * max_random_area}); default 0.08 and 1. Needs {@link #randomResizedCrop(boolean)}.
     */
    public Augment randomAreaRange(float min, float max) {
      this.minArea = min;
      this.maxArea = max;
      return this;
    }

    /**
     * The range of the random resized crop's width/height ratio, 0 < min <= max, drawn uniformly in
     * log space (torchvision's {@code ratio}; MXNet 1.3+ reuses {@code min_aspect_ratio} and {@code
     * max_aspect_ratio}, but here {@link #maxAspectRatio(float)} stays the affine stretch); default 3/4
     * and 4/3. Needs {@link #randomResizedCrop(boolean)}.
     */
    public Augment randomRatioRange(float min, float max) {
      this.minRatio = min;
      this.maxRatio = max;
      return this;
    }

    /**
     * Colour jitter (torchvision's ColorJitter {@code brightness}): multiply every value by a
     * factor drawn uniformly in [max(0, 1 - v), 1 + v]; default 0, off. Colour images (channels 3).
     */
    public Augment brightness(float v) {
      return brightness(Math.max(0, 1 - v), 1 + v);
    }

    /** Brightness with the factor drawn uniformly in [min, max], 0 <= min <= max; [1, 1] is off. */
    public Augment brightness(float min, float max) {
      brightness[0] = min;
      brightness[1] = max;
      return this;
    }

    /**
     * Colour jitter (torchvision's ColorJitter {@code contrast}): blend every value with the
     * image's mean gray level, {@code v * c + mean * (1 - c)}, c drawn uniformly in [max(0, 1 - v),
     * 1 + v]; default 0, off. On the 8-bit pixels, unlike {@link #maxRandomContrast(float)} (MXNet's,
     * on the normalised value). Colour images (channels 3).
     */
    public Augment contrast(float v) {
      return contrast(Math.max(0, 1 - v), 1 + v);
    }

    /** Contrast with the factor drawn uniformly in [min, max], 0 <= min <= max; [1, 1] is off. */
    public Augment contrast(float min, float max) {
      contrast[0] = min;
      contrast[1] = max;
      return this;
    }

    /**
     * Colour jitter (torchvision's ColorJitter {@code saturation}): blend every pixel with its
     * gray level (0.299 R + 0.587 G + 0.114 B), {@code v * s + gray * (1 - s)}, s drawn uniformly in
     * [max(0, 1 - v), 1 + v]: 0 gives the gray image; default 0, off. Colour images (channels 3).
     */
    public Augment saturation(float v) {
      return saturation(Math.max(0, 1 - v), 1 + v);
    }

    /** Saturation with the factor drawn uniformly in [min, max], 0 <= min <= max; [1, 1] is off. */
    public Augment saturation(float min, float max) {
      saturation[0] = min;
      saturation[1] = max;
      return this;
    }

    /**
     * Colour jitter (torchvision's ColorJitter {@code hue}): turn every pixel's HSV hue by a
     * fraction of the full circle drawn uniformly in [-v, v], 0 <= v <= 0.5; default 0, off. Colour
     * images (channels 3).
     */
    public Augment hue(float v) {
      return hue(-v, v);
    }

    /** Hue with the turn drawn uniformly in [min, max], -0.5 <= min <= max <= 0.5; [0, 0] is off. */
    public Augment hue(float min, float max) {
      hue[0] = min;
      hue[1] = max;
      return this;
    }

    /**
     * Replace the image by its gray level (0.299 R + 0.587 G + 0.114 B) in all three channels with
     * probability p (torchvision's RandomGrayscale), after the colour jitter; default 0. Colour
     * images (channels 3).
     */
    public Augment randomGray(float p) {
      this.randomGray = p;
      return this;
    }

    /** Checks the options (colour ones need {@code channels} 3, or 3 and 4) and freezes them. */
    Augmentation.Augments settings(int channels) {
      require(Augmentation.validInterMethod(interMethod), "interMethod must be 0..4, 9 or 10, got " + interMethod);
      require(resize == -1 || resize > 0, "resize must be positive (or -1, off), got " + resize);
      require(pad >= 0, "pad must be >= 0, got " + pad);
      require(maxRotateAngle >= 0, "maxRotateAngle must be >= 0, got " + maxRotateAngle);
      require(maxAspectRatio >= 0 && maxAspectRatio < 1, "maxAspectRatio must be in [0, 1), got " + maxAspectRatio);
      require(maxShearRatio >= 0, "maxShearRatio must be >= 0, got " + maxShearRatio);
      require(minRandomScale > 0 && minRandomScale <= maxRandomScale, "the random scale needs 0 < minRandomScale <= "
          + "maxRandomScale, got " + minRandomScale + " and " + maxRandomScale);
      require(minImgSize >= 0 && minImgSize <= maxImgSize, "the image size limits need 0 <= minImgSize <= maxImgSize, "
          + "got " + minImgSize + " and " + maxImgSize);
      if (maxCropSize != -1 || minCropSize != -1) {
        require(minCropSize > 0 && minCropSize <= maxCropSize, "a random crop size needs 0 < minCropSize <= "
            + "maxCropSize, got " + minCropSize + " and " + maxCropSize);
        require(cropYStart == -1 && cropXStart == -1, "cropYStart/cropXStart apply to a fixed-size crop, not with "
            + "minCropSize/maxCropSize");
      }
      require(cropYStart >= -1 && cropXStart >= -1, "cropYStart and cropXStart must be >= 0 (or -1, off)");
      require(!(randCrop && (cropYStart >= 0 || cropXStart >= 0)), "randCrop and cropYStart/cropXStart contradict "
          + "each other");
      require(randomH >= 0 && randomS >= 0 && randomL >= 0, "randomH, randomS and randomL must be >= 0");
      require(!(randomH != 0 || randomS != 0 || randomL != 0) || channels == 3, "randomH/S/L work on colour images "
          + "(dataShape channels 3), not " + channels);
      require(pcaNoise >= 0, "pcaNoise must be >= 0, got " + pcaNoise);
      require(pcaNoise == 0 || channels >= 3, "pcaNoise works on colour images, not " + channels + " channel(s)");
      require(fillValue >= 0 && fillValue <= 255, "fillValue must be 0..255, got " + fillValue);
      require(maxRandomContrast >= 0 && maxRandomIllumination >= 0, "maxRandomContrast and maxRandomIllumination "
          + "must be >= 0");
      Augmentation.ResizedCrop resizedCrop = resizedCrop();
      Augmentation.Jitter jitter = jitter(channels);
      return new Augmentation.Augments(
          new Augmentation.Crop(resize, pad, randCrop, cropYStart, cropXStart, maxCropSize, minCropSize),
          resizedCrop,
          new Augmentation.Affine(maxRotateAngle, rotate, maxAspectRatio, maxShearRatio, maxRandomScale,
              minRandomScale, maxImgSize, minImgSize),
          new Augmentation.Colour(randomH, randomS, randomL, maxRandomContrast, maxRandomIllumination, pcaNoise),
          jitter, fillValue, interMethod, mirror, randMirror);
    }

    /** The random resized crop's settings, checked against the crop options it replaces. */
    private Augmentation.ResizedCrop resizedCrop() {
      require(minArea > 0 && minArea <= maxArea && maxArea <= 1, "randomAreaRange needs 0 < min <= max <= 1 "
          + "(fractions of the image's area), got " + minArea + " and " + maxArea);
      require(minRatio > 0 && minRatio <= maxRatio && Float.isFinite(maxRatio), "randomRatioRange needs 0 < min <= "
          + "max (width/height), got " + minRatio + " and " + maxRatio);
      if (randomResizedCrop) {
        require(!randCrop, "randomResizedCrop places its crop at random itself; drop randCrop(true)");
        require(cropYStart == -1 && cropXStart == -1, "randomResizedCrop chooses the crop's position; drop "
            + "cropYStart/cropXStart");
        require(maxCropSize == -1 && minCropSize == -1, "randomResizedCrop and minCropSize/maxCropSize are two "
            + "random crops; use one");
      } else {
        require(minArea == DEFAULT_MIN_AREA && maxArea == 1 && minRatio == DEFAULT_MIN_RATIO
            && maxRatio == DEFAULT_MAX_RATIO, "randomAreaRange and randomRatioRange shape the random resized "
            + "crop; set randomResizedCrop(true) too");
      }
      return new Augmentation.ResizedCrop(randomResizedCrop, minArea, maxArea, minRatio, maxRatio);
    }

    /** The colour jitter and random gray settings, checked; they need a colour image. */
    private Augmentation.Jitter jitter(int channels) {
      String[] names = {"brightness", "contrast", "saturation"};
      float[][] factors = {brightness, contrast, saturation};
      for (int k = 0; k < 3; k++) {
        float[] f = factors[k];
        require(f[0] >= 0 && f[0] <= f[1] && Float.isFinite(f[1]), names[k] + " needs a factor range 0 <= min <= "
            + "max (or one value v >= 0 for [max(0, 1 - v), 1 + v]), got " + f[0] + " and " + f[1]);
      }
      require(hue[0] >= -0.5f && hue[0] <= hue[1] && hue[1] <= 0.5f, "hue needs -0.5 <= min <= max <= 0.5 "
          + "(fractions of the hue circle; one value v in [0, 0.5] for [-v, v]), got " + hue[0] + " and " + hue[1]);
      require(randomGray >= 0 && randomGray <= 1, "randomGray is a probability in [0, 1], got " + randomGray);
      Augmentation.Jitter j = new Augmentation.Jitter(brightness[0], brightness[1], contrast[0], contrast[1],
          saturation[0], saturation[1], hue[0], hue[1], randomGray);
      require(!(j.any() || randomGray > 0) || channels == 3, "brightness, contrast, saturation, hue and randomGray "
          + "work on colour images (dataShape channels 3), not " + channels);
      return j;
    }
  }

  /**
   * The normalisation options of ImageRecordIter, set through {@link Builder#normalize(Consumer)}:
   * per-channel means and divisors, a scale, or a mean image: a float value is {@code (pixel - mean)
   * * scale / std} before contrast and illumination; {@link Builder#build()} checks them.
   */
  public static final class Normalize {
    private @Nullable Path meanImg;
    private final float[] mean = new float[4];
    private final float[] std = {1, 1, 1, 1};
    private float scale = 1;

    /** MXNet's defaults: mean 0, std 1, scale 1, no mean image. */
    Normalize() {}

    /**
     * A mean image to subtract per pixel (MXNet {@code mean_img}), as a NumPy {@code .npy} float
     * array of the output's (c, h, w) in RGB order. If the file does not exist, it is computed at
     * build time over every image (centre crop, no random augmentation) and saved there. Overrides
     * meanR/G/B/A.
     */
    public Normalize meanImg(@Nullable Path npy) {
      this.meanImg = npy;
      return this;
    }

    /** The mean subtracted from the red (or gray) channel (MXNet {@code mean_r}); default 0. */
    public Normalize meanR(float v) {
      mean[0] = v;
      return this;
    }

    /** The mean subtracted from the green channel (MXNet {@code mean_g}); default 0. */
    public Normalize meanG(float v) {
      mean[1] = v;
      return this;
    }

    /** The mean subtracted from the blue channel (MXNet {@code mean_b}); default 0. */
    public Normalize meanB(float v) {
      mean[2] = v;
      return this;
    }

    /** The mean subtracted from the alpha channel (MXNet {@code mean_a}); default 0. */
    public Normalize meanA(float v) {
      mean[3] = v;
      return this;
    }

    /** meanR, meanG and meanB at once. */
    public Normalize meanRgb(float r, float g, float b) {
      return meanR(r).meanG(g).meanB(b);
    }

    /** The red (or gray) channel's divisor (MXNet {@code std_r}); default 1. */
    public Normalize stdR(float v) {
      std[0] = v;
      return this;
    }

    /** The green channel's divisor (MXNet {@code std_g}); default 1. */
    public Normalize stdG(float v) {
      std[1] = v;
      return this;
    }

    /** The blue channel's divisor (MXNet {@code std_b}); default 1. */
    public Normalize stdB(float v) {
      std[2] = v;
      return this;
    }

    /** The alpha channel's divisor (MXNet {@code std_a}); default 1. */
    public Normalize stdA(float v) {
      std[3] = v;
      return this;
    }

    /** stdR, stdG and stdB at once. */
    public Normalize stdRgb(float r, float g, float b) {
      return stdR(r).stdG(g).stdB(b);
    }

    /** Multiply every value after subtracting the mean (MXNet {@code scale}), e.g. 1/255; default 1. */
    public Normalize scale(float scale) {
      this.scale = scale;
      return this;
    }

    /** Checks the divisors and freezes the options. */
    Augmentation.Normalization settings() {
      for (int c = 0; c < 4; c++) {
        require(std[c] != 0 && Float.isFinite(std[c]), "std of channel " + "RGBA".charAt(c) + " must be finite and "
            + "non-zero, got " + std[c]);
      }
      return new Augmentation.Normalization(mean.clone(), std.clone(), scale, meanImg);
    }
  }

  /** The one check every group uses, so each message carries the provider's name. */
  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException("ImageRecordProvider: " + message);
    }
  }
}
