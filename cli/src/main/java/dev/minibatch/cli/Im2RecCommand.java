package dev.minibatch.cli;

import dev.minibatch.runtime.io.image.Im2Rec;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code minibatch im2rec PREFIX ROOT}: the runtime's {@link Im2Rec}, MXNet's im2rec. */
@Command(name = "im2rec", mixinStandardHelpOptions = true,
    description = {"Packs images into PREFIX.rec (image records, MXNet's RecordIO) and PREFIX.idx (its index), as "
        + "MXNet's im2rec. Without --list, ROOT holds one sub-folder per class (labels 0, 1, ... in sorted order) "
        + "and the list is written to PREFIX.lst. An image that cannot be decoded is an error naming it."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  minibatch im2rec data/train images --resize 256 --num-thread 2",
        "      images/<class>/<file> -> data/train.rec, .idx, .lst (JPEG, quality 95)",
        "  minibatch im2rec data/val images --list val.lst --encoding .png",
        "      the images named in val.lst, re-encoded losslessly",
        "  minibatch inspect data/train.rec",
        "      what was packed: records, labels, image formats"})
final class Im2RecCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "PREFIX", description = "Output prefix: writes PREFIX.rec and PREFIX.idx.")
  Path prefix;

  @Parameters(index = "1", paramLabel = "ROOT", description = "The images' folder (one sub-folder per class), or "
      + "the root that --list's paths are relative to.")
  Path root;

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
    Im2Rec.Builder b = Im2Rec.builder().output(prefix).resize(resize).centerCrop(centerCrop).encoding(encoding)
        .quality(quality).color(color).passThrough(passThrough).packLabel(packLabel).threads(threads);
    if (list != null) {
      b.list(list, root);
    } else {
      b.folder(root);
    }
    if (shuffle != null) {
      b.shuffle(shuffle);
    }
    Im2Rec im2rec;
    try {
      im2rec = b.build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      // Only the settings are checked here: a value out of range is a usage error (exit 2).
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    // What run() rejects is the input (a missing or empty folder, a bad list, an image that cannot be
    // decoded): an input error, one line naming it (exit 3).
    Im2Rec.Result r = im2rec.run();
    java.io.PrintWriter out = spec.commandLine().getOut();
    out.println("packed " + r.images() + " images into " + r.rec() + " (" + r.bytes() + " bytes), index " + r.idx()
        + (r.classes().isEmpty() ? "" : ", list " + r.lst() + ", classes " + r.classes()));
    out.flush();
    return Minibatch.ExitCode.OK;
  }
}
