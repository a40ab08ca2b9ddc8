package dev.minibatch.cli;

import dev.minibatch.runtime.io.image.Im2Rec;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code minibatch im2rec PREFIX ROOT}: the runtime's {@link Im2Rec}, MXNet's im2rec. */
@Command(name = "im2rec", mixinStandardHelpOptions = true,
    description = {"Packs images into PREFIX.rec (image records, MXNet's RecordIO) and PREFIX.idx (its index), as "
        + "MXNet's im2rec. Without --list, ROOT holds one sub-folder per class (labels 0, 1, ... in sorted order) "
        + "and the list is written to PREFIX.lst. An image that cannot be decoded is an error naming it. With "
        + "--shards, PREFIX is a shard set's directory instead, its images stored encoded (as in the .rec) for "
        + "ShardProvider to decode; ROOT may then also be a .rec file to convert, its labels (packed too) kept."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  minibatch im2rec data/train images --resize 256 --num-thread 2",
        "      images/<class>/<file> -> data/train.rec, .idx, .lst (JPEG, quality 95)",
        "  minibatch im2rec data/val images --list val.lst --encoding .png",
        "      the images named in val.lst, re-encoded losslessly",
        "  minibatch im2rec --shards --shape 3,224,224 --pass-through data/train-shards images",
        "      images/<class>/<file> -> a shard set of the files' bytes, decoded to 3x224x224 when read",
        "  minibatch im2rec --shards --shape 3,224,224 data/train-shards train.rec",
        "      an MXNet record file (train.idx beside it) -> a shard set, packed labels kept",
        "  minibatch inspect data/train.rec",
        "      what was packed: records, labels, image formats"})
final class Im2RecCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "PREFIX", description = "Output prefix: writes PREFIX.rec and PREFIX.idx; "
      + "with --shards, the shard set's directory (new or empty; a local path, or an hdfs:// or s3a:// URI).")
  String prefix;

  @Parameters(index = "1", paramLabel = "ROOT", description = "The images' folder (one sub-folder per class), or "
      + "the root that --list's paths are relative to; with --shards also a record file (.rec, its .idx beside it).")
  Path root;

  @Option(names = "--shards", description = "Write a shard set (directory PREFIX) with an encoded-image column "
      + "'data' and a label column 'softmax_label' instead of PREFIX.rec and .idx; needs --shape.")
  boolean shards;

  @Option(names = "--shape", paramLabel = "C,H,W", split = ",", description = "--shards: the image a sample gives "
      + "a batch when read: channels (1, 3 or 4), height, width (the set's schema; the images stay encoded).")
  int @org.jspecify.annotations.Nullable [] shape;

  @Option(names = "--samples-per-file", paramLabel = "N", defaultValue = "10000", description = "--shards: images "
      + "per shard file, at least 1 (default: ${DEFAULT-VALUE}).")
  int samplesPerFile;

  @Option(names = "--list", paramLabel = "LST", description = "Pack the images named in this .lst "
      + "(index<TAB>label...<TAB>path).")
  Path list;

  @Option(names = "--resize", paramLabel = "N", defaultValue = "-1", description = "Resize the shorter side to N "
      + "pixels (default: keep the size).")
  int resize;

  @Option(names = "--center-crop", description = "Crop the centre square before resizing.")
  boolean centerCrop;

  @Option(names = "--encoding", paramLabel = "E", defaultValue = ".jpg", description = ".jpg (default) or .png "
      + "(lossless).")
  String encoding;

  @Option(names = "--quality", paramLabel = "Q", defaultValue = "-1", description = "JPEG quality 1..100 (default "
      + "95) or PNG compression 0..9 (default 3).")
  int quality;

  @Option(names = "--color", paramLabel = "C", defaultValue = "1", description = "1 colour (default), 0 grayscale, "
      + "-1 unchanged.")
  int color;

  @Option(names = "--pass-through", description = "Store the files' bytes unchanged.")
  boolean passThrough;

  @Option(names = "--pack-label", description = "Store every label of a list line with several (default: the first, "
      + "in the header).")
  boolean packLabel;

  @Option(names = "--num-thread", paramLabel = "T", defaultValue = "1", description = "Threads that encode; records "
      + "keep the list's order (default: ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--shuffle", paramLabel = "SEED", description = "Shuffle the list made from a folder with this "
      + "seed.")
  Long shuffle;

  @Override
  public Integer call() {
    if (shards) {
      return new Im2Shards(this).call();
    }
    List<String> shardOnly = given("--shape", "--samples-per-file");
    if (!shardOnly.isEmpty()) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), String.join(" and ", shardOnly)
          + (shardOnly.size() == 1 ? " goes" : " go") + " with --shards (a shard set's output)");
    }
    Im2Rec.Result r = packer(Path.of(prefix)).run();
    java.io.PrintWriter out = spec.commandLine().getOut();
    out.println("packed " + r.images() + " images into " + r.rec() + " (" + r.bytes() + " bytes), index " + r.idx()
        + (r.classes().isEmpty() ? "" : ", list " + r.lst() + ", classes " + r.classes()));
    out.flush();
    return Minibatch.ExitCode.OK;
  }

  /** The options among {@code names} given on the command line, in that order. */
  List<String> given(String... names) {
    picocli.CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    return java.util.Arrays.stream(names).filter(parsed::hasMatchedOption).toList();
  }

  /**
   * The runtime's {@link Im2Rec} with this command's settings, writing {@code output}.rec and .idx.
   *
   * @throws picocli.CommandLine.ParameterException for a setting out of range (a usage error)
   */
  Im2Rec packer(Path output) {
    Im2Rec.Builder b = Im2Rec.builder().output(output).resize(resize).centerCrop(centerCrop).encoding(encoding)
        .quality(quality).color(color).passThrough(passThrough).packLabel(packLabel).threads(threads);
    if (list != null) {
      b.list(list, root);
    } else {
      b.folder(root);
    }
    if (shuffle != null) {
      b.shuffle(shuffle);
    }
    try {
      // What run() rejects is the input (a missing or empty folder, a bad list, an image that cannot
      // be decoded): an input error, one line naming it (exit 3).
      return b.build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      // Only the settings are checked here: a value out of range is a usage error (exit 2).
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
