package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_GRAYSCALE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_UNCHANGED;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_PNG_COMPRESSION;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_LINEAR;

import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.spi.Seeds;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import dev.minibatch.runtime.pipeline.ParallelOptions;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.StageFailedException;
import dev.minibatch.runtime.reader.Reader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Size;
import org.jspecify.annotations.Nullable;

/**
 * MXNet's {@code im2rec}: packs images into a RecordIO file of image records ({@code
 * PREFIX.rec}) with its index ({@code PREFIX.idx}), from an image folder (one sub-folder per class,
 * which also writes the list {@code PREFIX.lst}) or from an existing {@code .lst} list. Images are
 * optionally centre-cropped to a square, resized (shorter side) and re-encoded (JPEG or PNG) on
 * several threads; records are written in list order, each with the list's index as its id.
 *
 * <pre>{@code
 * Im2Rec.Result r = Im2Rec.builder().folder(Path.of("images")).output(Path.of("data/train"))
 *     .resize(256).quality(95).threads(4).build().run();
 * // data/train.rec, data/train.idx, data/train.lst
 * }</pre>
 *
 * <p>Unlike im2rec, an image that cannot be read is an error naming the file, not a warning and a
 * skipped image; so is a corrupt JPEG that OpenCV would decode without an error (truncated
 * entropy-coded data, bytes left before a marker, a bad Huffman code: {@link JpegCheck}), also
 * with {@link Builder#passThrough}, where the check is all the image goes through. From the
 * command line: {@code minibatch im2rec} (the CLI module), which runs this.
 */
public final class Im2Rec {
  private final @Nullable Path folder;
  private final @Nullable Path list;
  private final Path root;
  private final Path prefix;
  private final int resize;
  private final boolean centerCrop;
  private final int quality;
  private final String encoding;
  private final int color;
  private final boolean passThrough;
  private final boolean packLabel;
  private final int threads;
  private final @Nullable Long shuffleSeed;
  /** One checker per packing thread. */
  private final ThreadLocal<JpegCheck> jpegs = ThreadLocal.withInitial(JpegCheck::new);

  private Im2Rec(Builder b) {
    this.folder = b.folder;
    this.list = b.list;
    this.root = b.root;
    this.prefix = b.output;
    this.resize = b.resize;
    this.centerCrop = b.centerCrop;
    this.quality = b.quality == -1 ? (b.encoding.equals(".png") ? 3 : 95) : b.quality;
    this.encoding = b.encoding;
    this.color = b.color;
    this.passThrough = b.passThrough;
    this.packLabel = b.packLabel;
    this.threads = b.threads;
    this.shuffleSeed = b.shuffleSeed;
  }

  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * What {@link #run()} wrote.
   *
   * @param rec the record file
   * @param idx its index
   * @param lst the list (written in folder mode; the input list otherwise)
   * @param images the number of records
   * @param bytes the record file's size
   * @param classes the class names in label order (folder mode; else empty)
   */
  public record Result(Path rec, Path idx, Path lst, int images, long bytes, List<String> classes) {}

  /** One encoded image, made on a worker thread. */
  private record Packed(long index, byte[] payload) {}

  /**
   * Packs the images.
   *
   * @throws FileFormatException naming the list (and line) for a bad list, or an image that cannot
   *     be decoded or is a corrupt JPEG
   * @throws UncheckedIOException naming the file for I/O failures
   */
  public Result run() {
    OpenCv.require();
    Path rec = Path.of(prefix + ".rec");
    Path idx = Path.of(prefix + ".idx");
    Path lst;
    List<ImageList.Entry> entries;
    List<String> classes = List.of();
    if (folder != null) {
      FolderImages images = new FolderImages(folder);
      classes = images.classes();
      entries = new ArrayList<>();
      for (int i = 0; i < images.size(); i++) {
        entries.add(new ImageList.Entry(i, new float[] {images.label(i)}, folder.relativize(images.files().get(i))
            .toString().replace('\\', '/')));
      }
      if (shuffleSeed != null) {
        Collections.shuffle(entries, new Random(Seeds.derive(shuffleSeed, 0)));
      }
      lst = Path.of(prefix + ".lst");
      createParent(lst);
      new ImageList(entries).write(lst);
    } else {
      lst = java.util.Objects.requireNonNull(list);
      entries = ImageList.read(lst).entries();
    }
    createParent(rec);
    Reader<ImageList.Entry> source = () -> PipelineIterator.of(entries.iterator());
    Reader<Packed> packed = source.xmap(ParallelOptions.builder().name("im2rec").workers(threads)
        .bufferSize(4 * threads).ordered(true).build(), (e, context) -> pack(e));
    int n = 0;
    try (RecordIOWriter out = RecordIOWriter.create(rec, idx); PipelineIterator<Packed> it = packed.iterator()) {
      while (it.hasNext()) {
        Packed p = it.next();
        out.write(p.index(), p.payload());
        n++;
      }
    } catch (StageFailedException e) {
      // The worker's own error names the image; the stage adds nothing a caller needs.
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
    long bytes;
    try {
      bytes = Files.size(rec);
    } catch (IOException e) {
      throw IoFailure.of("read", "the size of " + rec, e);
    }
    return new Result(rec, idx, lst, n, bytes, classes);
  }

  private static void createParent(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    try {
      if (parent != null) {
        Files.createDirectories(parent);
      }
    } catch (IOException e) {
      throw IoFailure.of("create", parent, e);
    }
  }

  private Packed pack(ImageList.Entry e) {
    Path file = root.resolve(e.path());
    byte[] raw;
    try {
      raw = Files.readAllBytes(file);
    } catch (IOException x) {
      throw IoFailure.of("read", "image " + file + " (listed as index " + e.index() + ")", x);
    }
    String corrupt = jpegs.get().check(raw, 0, raw.length);
    if (corrupt != null) {
      throw new FileFormatException(file.toString(), corrupt + " (listed as index " + e.index() + ")");
    }
    byte[] image = passThrough ? raw : reencode(raw, file);
    float[] labels = e.labels();
    ImageRecord r = packLabel && labels.length > 1 ? ImageRecord.of(e.index(), labels, image)
        : ImageRecord.of(e.index(), labels[0], image);
    return new Packed(e.index(), r.encode());
  }

  private byte[] reencode(byte[] raw, Path file) {
    int flags = color == 1 ? IMREAD_COLOR : color == 0 ? IMREAD_GRAYSCALE : IMREAD_UNCHANGED;
    try (BytePointer in = new BytePointer(raw); Mat img = OpenCv.decode(in, 0, raw.length, flags)) {
      if (img.empty()) {
        throw new FileFormatException(file.toString(), "OpenCV cannot decode this image (" + raw.length + " bytes)");
      }
      Mat res = img;
      Mat crop = null;
      Mat resized = null;
      try {
        if (centerCrop && res.rows() != res.cols()) {
          int side = Math.min(res.rows(), res.cols());
          int y = (res.rows() - side) / 2;
          int x = (res.cols() - side) / 2;
          try (org.bytedeco.opencv.opencv_core.Rect r = new org.bytedeco.opencv.opencv_core.Rect(x, y, side, side)) {
            crop = res.apply(r);
          }
          res = crop;
        }
        if (resize > 0) {
          int[] size = new int[2];
          OpenCv.shorterSide(res.rows(), res.cols(), resize, size);
          resized = new Mat();
          try (Size s = new Size(size[0], size[1])) {
            org.bytedeco.opencv.global.opencv_imgproc.resize(res, resized, s, 0, 0, INTER_LINEAR);
          }
          res = resized;
        }
        int param = encoding.equals(".png") ? IMWRITE_PNG_COMPRESSION : IMWRITE_JPEG_QUALITY;
        try (BytePointer out = new BytePointer(); IntPointer params = new IntPointer(param, quality)) {
          if (!imencode(encoding, res, out, params)) {
            throw new FileFormatException(file.toString(), "OpenCV cannot encode it as " + encoding);
          }
          byte[] b = new byte[(int) out.limit()];
          out.get(b);
          return b;
        }
      } finally {
        if (crop != null) {
          crop.close();
        }
        if (resized != null) {
          resized.close();
        }
      }
    }
  }

  /** Builds {@link Im2Rec} runs; a source ({@link #folder} or {@link #list}) and {@link #output} are required. */
  public static final class Builder {
    private @Nullable Path folder;
    private @Nullable Path list;
    private Path root = Path.of(".");
    private @Nullable Path output;
    private int resize = -1;
    private boolean centerCrop;
    private int quality = -1;
    private String encoding = ".jpg";
    private int color = 1;
    private boolean passThrough;
    private boolean packLabel;
    private int threads = 1;
    private @Nullable Long shuffleSeed;

    private Builder() {}

    /** Pack every image of this folder, one sub-folder per class (labels 0, 1, ... in sorted order). */
    public Builder folder(Path folder) {
      this.folder = folder;
      this.root = folder;
      return this;
    }

    /** Pack the images of this {@code .lst} list, whose paths are relative to {@code root}. */
    public Builder list(Path lst, Path root) {
      this.list = lst;
      this.root = root;
      return this;
    }

    /** The output prefix: writes {@code PREFIX.rec}, {@code PREFIX.idx} (and {@code PREFIX.lst} in folder mode). Required. */
    public Builder output(Path prefix) {
      this.output = prefix;
      return this;
    }

    /** Resize the shorter side to this many pixels (im2rec {@code --resize}); default -1, off. */
    public Builder resize(int shorterSide) {
      this.resize = shorterSide;
      return this;
    }

    /** Crop the centre square before resizing (im2rec {@code --center-crop}); default false. */
    public Builder centerCrop(boolean centerCrop) {
      this.centerCrop = centerCrop;
      return this;
    }

    /** JPEG quality 1..100 (default 95) or PNG compression 0..9 (default 3), as im2rec {@code --quality}. */
    public Builder quality(int quality) {
      this.quality = quality;
      return this;
    }

    /** {@code ".jpg"} (default) or {@code ".png"} (lossless), as im2rec {@code --encoding}. */
    public Builder encoding(String encoding) {
      this.encoding = encoding.toLowerCase(Locale.ROOT);
      return this;
    }

    /** Decode as colour (1, default), grayscale (0) or unchanged (-1), as im2rec {@code --color}. */
    public Builder color(int color) {
      this.color = color;
      return this;
    }

    /**
     * Store the files' bytes as they are, without decoding (im2rec {@code --pass-through}); default
     * false. JPEGs are still checked for corruption, which costs a fraction of a decode.
     */
    public Builder passThrough(boolean passThrough) {
      this.passThrough = passThrough;
      return this;
    }

    /** Store every label of a list line with more than one after the header (im2rec {@code --pack-label}); default false: the first in the header. */
    public Builder packLabel(boolean packLabel) {
      this.packLabel = packLabel;
      return this;
    }

    /** Threads that decode and encode (im2rec {@code --num-thread}); records keep the list's order; default 1. */
    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    /** Shuffle the list made from a folder with this seed (im2rec {@code --shuffle}); default: sorted order. */
    public Builder shuffle(long seed) {
      this.shuffleSeed = seed;
      return this;
    }

    /**
     * Checks the settings.
     *
     * @throws IllegalStateException without a source or an output
     * @throws IllegalArgumentException for settings out of range
     */
    public Im2Rec build() {
      if ((folder == null) == (list == null)) {
        throw new IllegalStateException("Im2Rec: give either folder(dir) or list(lst, root)");
      }
      if (output == null) {
        throw new IllegalStateException("Im2Rec: set output(prefix)");
      }
      if (!encoding.equals(".jpg") && !encoding.equals(".png")) {
        throw new IllegalArgumentException("Im2Rec: encoding must be .jpg or .png, got " + encoding);
      }
      int max = encoding.equals(".png") ? 9 : 100;
      if (quality != -1 && (quality < 0 || quality > max)) {
        throw new IllegalArgumentException("Im2Rec: quality for " + encoding + " must be 0.." + max + ", got " + quality);
      }
      if (color < -1 || color > 1) {
        throw new IllegalArgumentException("Im2Rec: color must be 1, 0 or -1, got " + color);
      }
      Check.atLeast("Im2Rec: threads", threads, 1);
      if (resize == 0 || resize < -1) {
        throw new IllegalArgumentException("Im2Rec: resize must be positive (or -1, off), got " + resize);
      }
      return new Im2Rec(this);
    }
  }
}
