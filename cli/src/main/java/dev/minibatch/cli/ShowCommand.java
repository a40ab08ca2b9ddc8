package dev.minibatch.cli;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.Location;
import dev.minibatch.runtime.io.image.ImageGrid;
import dev.minibatch.runtime.io.image.ImageOptions;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.spi.EngineProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code minibatch show FILE}: the first batch's images, as the provider delivers them, in a PNG grid. */
@Command(name = "show", mixinStandardHelpOptions = true,
    description = {"Writes the first batch's images after augmentation as a PNG grid, each tile captioned with its "
        + "label and sample index; with --compare, each sample's original beside it. Reads any format whose batches "
        + "hold an image array: RecordIO .rec and image folders (ImageRecordProvider, with the augmentation and "
        + "normalisation flags below), shard sets and others with uint8 images of shape (c, h, w) or (h, w, c)."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  minibatch show train.rec",
        "      grid.png: 16 images at the first image's size, in file order",
        "  minibatch show --out aug.png --shuffle --seed 3 --shape 3,224,224 --resize 256 --rand-crop --rand-mirror "
            + "train.rec",
        "  minibatch show --compare --random-resized-crop --brightness 0.4 --shape 3,64,64 images/",
        "      each original (decoded, resized, centre crop) left of its augmented image"})
final class ShowCommand implements Callable<Integer> {
  /** The formats that decode and augment images, and read {@link ImageOptions}. */
  private static final List<String> IMAGE_FORMATS = List.of("recordio", "folder");

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Mixin InputMixin input;

  @Mixin ImageMixin image;

  @Option(names = "--out", paramLabel = "PNG", defaultValue = "grid.png", description = "The picture to write "
      + "(default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--batch", paramLabel = "N", defaultValue = "16", description = "Samples to show, at least 1; a "
      + "file with fewer shows all (default: ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--columns", paramLabel = "C", defaultValue = "8", description = "Samples per row of the grid, at "
      + "least 1 (default: ${DEFAULT-VALUE}).")
  int columns;

  @Option(names = "--tile-scale", paramLabel = "S", description = "Draw each pixel as an S x S square, at least 1 "
      + "(default: the least that makes a tile 96 pixels or more).")
  @Nullable Integer tileScale;

  @Option(names = "--no-captions", description = "Leave out the caption strips (label and sample index).")
  boolean noCaptions;

  @Option(names = "--compare", description = "Draw each sample's original (decoded and brought to the output shape "
      + "without random augmentation) left of its augmented image.")
  boolean compare;

  @Option(names = "--shuffle", description = "Show a shuffled batch instead of the first samples.")
  boolean shuffle;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "0", description = "The seed of the shuffle and of the "
      + "random augmentation (default: ${DEFAULT-VALUE}).")
  long seed;

  @Parameters(paramLabel = "FILE", description = "The .rec file, image folder or shard set: a local path, or a URI "
      + "(hdfs://, s3a://) of a format that reads one.")
  String arg;

  @Override
  public Integer call() {
    OptionRange.atLeast(spec, "--batch", batch, 1);
    OptionRange.atLeast(spec, "--columns", columns, 1);
    if (tileScale != null) {
      OptionRange.atLeast(spec, "--tile-scale", tileScale, 1);
    }
    Outputs.checkWritable(out, "the picture");
    Location file = input.location(arg);
    Format format = Formats.load(Minibatch.class.getClassLoader()).of(file, input.format);
    boolean images = IMAGE_FORMATS.contains(format.name());
    if (!images && !image.given().isEmpty()) {
      throw new IllegalArgumentException(file + " is " + format.name() + ", whose samples are not decoded or augmented "
          + "images: " + String.join(", ", image.given()) + " apply to recordio and folder");
    }
    if (!images && compare) {
      throw new IllegalArgumentException(file + " is " + format.name() + ", whose samples are not augmented: "
          + "--compare applies to recordio and folder");
    }
    try (BatchProvider<? extends Batch> shown = provider(format, file, true);
        BatchProvider<? extends Batch> originals = compare ? provider(format, file, false) : null;
        BatchIterator<? extends Batch> it = shown.iterator();
        BatchIterator<? extends Batch> before = originals == null ? null : originals.iterator()) {
      ImageGrid.Builder b = ImageGrid.builder().columns(columns).captions(!noCaptions);
      if (tileScale != null) {
        b.tileScale(tileScale);
      }
      if (shown instanceof ImageRecordProvider p) {
        b.from(p);
      }
      Batch first = it.next();
      ImageGrid grid = b.build();
      try {
        if (before == null) {
          grid.write(first, out);
        } else {
          grid.write(first, before.next(), out);
        }
      } catch (IllegalArgumentException e) {
        // No image array, or batches that differ: name the file and its format.
        throw new IllegalArgumentException(file + " (" + format.name() + "): " + e.getMessage(), e);
      }
      spec.commandLine().getOut().println("wrote " + out + ": " + first.countSamples() + " samples of " + file + " ("
          + format.name() + ")" + (compare ? ", each original left of its augmented image" : ""));
    }
    return Minibatch.ExitCode.OK;
  }

  /** The provider of {@code batch} samples (all, if the file holds fewer), augmented or not. */
  private BatchProvider<? extends Batch> provider(Format format, Location file, boolean augmented) {
    BatchProvider<? extends Batch> p = format.provider(file, options(batch, augmented));
    if (p instanceof EngineProvider<?> e && e.shardSize() < p.batchSize()) {
      // A batch larger than the file would be padding (or is refused): show every sample.
      int samples = e.shardSize();
      p.close();
      p = format.provider(file, options(samples, augmented));
    }
    return p;
  }

  private Format.Options options(int rows, boolean augmented) {
    return input.options(0, Settings.builder().batchSize(rows).shuffle(shuffle).seed(seed).build(),
        image.options(augmented));
  }
}
