package dev.minibatch.cli;

import dev.minibatch.runtime.io.Location;
import dev.minibatch.runtime.io.image.Im2Rec;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import dev.minibatch.shards.ImageShardWriter;
import dev.minibatch.shards.ShardSet;
import dev.minibatch.shards.ShardWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ParameterException;

/**
 * {@code im2rec --shards}: a shard set of encoded images through the shards module's {@link
 * ImageShardWriter}. A record file ROOT is converted as it is; a folder or a list is first packed
 * by the runtime's {@link Im2Rec} with the command's settings (so re-encoding, the JPEG check, the
 * labels and the order are exactly those of the {@code .rec} output) into a record file in a
 * temporary folder, which is then converted and deleted.
 */
final class Im2Shards {
  /** The options that only packing images reads: meaningless for a record file, already packed. */
  private static final String[] PACKING = {"--list", "--resize", "--center-crop", "--encoding", "--quality", "--color",
      "--pass-through", "--pack-label", "--num-thread", "--shuffle"};

  private final Im2RecCommand c;

  Im2Shards(Im2RecCommand command) {
    this.c = command;
  }

  int call() {
    OptionRange.atLeast(c.spec, "--samples-per-file", c.samplesPerFile, 1);
    int[] s = c.shape;
    if (s == null || s.length != 3) {
      throw new ParameterException(c.spec.commandLine(), "--shards needs --shape C,H,W (3 numbers): the image a "
          + "sample gives a batch, e.g. --shape 3,224,224" + (s == null ? "" : "; got " + s.length + " numbers"));
    }
    boolean record = Files.isRegularFile(c.root);
    List<String> packing = c.given(PACKING);
    if (record && !packing.isEmpty()) {
      throw new ParameterException(c.spec.commandLine(), String.join(", ", packing) + ": " + c.root + " is a record "
          + "file, its images converted as they are packed in it; these options pack a folder or a list of images");
    }
    // Settings first (usage errors, exit 2), then the output, before anything is read or packed.
    writer(1);
    if (!record) {
      c.packer(Path.of(c.prefix)); // checks the packing settings only; nothing is written
    }
    refuseNonEmpty();
    if (record) {
      Path idx = Path.of(c.root.toString().replaceFirst("\\.rec$", "") + ".idx");
      print(write(c.root, Files.isRegularFile(idx) ? idx : null), List.of());
      return Minibatch.ExitCode.OK;
    }
    Path temp = temporaryFolder();
    ShardSet set;
    Im2Rec.Result r;
    try {
      r = c.packer(temp.resolve("images")).run();
      set = write(r.rec(), r.idx());
    } catch (RuntimeException e) {
      try {
        delete(temp);
      } catch (UncheckedIOException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
    delete(temp);
    print(set, r.classes());
    return Minibatch.ExitCode.OK;
  }

  /** Converts the record file, with as many labels per image as its first record packs (one if none). */
  private ShardSet write(Path rec, @Nullable Path idx) {
    int labelWidth = 1;
    try (RecordIOFile file = idx == null ? RecordIOFile.open(rec) : RecordIOFile.open(rec, idx)) {
      if (file.records() > 0) {
        ByteBuffer first = file.read(0, null);
        ImageRecord.check(first, rec.toString(), 0, file.offset(0));
        labelWidth = Math.max(1, ImageRecord.flag(first));
      }
    }
    return writer(labelWidth).writeRecordIO(rec, idx, c.prefix);
  }

  /** The writer of images of {@code --shape} with {@code labelWidth} labels each. */
  private ImageShardWriter writer(int labelWidth) {
    int[] s = java.util.Objects.requireNonNull(c.shape);
    try {
      return ImageShardWriter.builder().dataShape(s[0], s[1], s[2]).labelWidth(labelWidth)
          .writer(ShardWriter.builder().samplesPerFile(c.samplesPerFile).build()).build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new ParameterException(c.spec.commandLine(), "Invalid value for option '--shape': " + s[0] + "," + s[1]
          + "," + s[2] + ": " + e.getMessage());
    }
  }

  private void print(ShardSet set, List<String> classes) {
    PrintWriter out = c.spec.commandLine().getOut();
    out.println("packed " + set.samples() + " images into " + set + (classes.isEmpty() ? "" : ", classes " + classes));
    out.flush();
  }

  /**
   * A local output that is a file, or a folder that holds anything, is refused before the images
   * are packed (an input error naming it); a URI's file system is asked by the writer, which
   * refuses the same.
   */
  private void refuseNonEmpty() {
    Location out = Location.parse(c.prefix);
    if (!out.isLocal()) {
      return;
    }
    Path dir = out.path();
    String problem = null;
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      problem = "it is a file";
    } else if (Files.isDirectory(dir)) {
      try (Stream<Path> s = Files.list(dir)) {
        List<String> names = s.map(p -> p.getFileName().toString()).sorted().limit(4).toList();
        if (!names.isEmpty()) {
          problem = "it holds files already (" + String.join(", ", names) + (names.size() == 4 ? ", ..." : "")
              + "); a shard set is written into a new or empty folder";
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
      }
    }
    if (problem != null) {
      String message = "cannot write the shard set to " + dir + ": " + problem;
      throw new UncheckedIOException(message, new IOException(message));
    }
  }

  /**
   * A new folder for the packed record file: beside a local output (the same disk, which holds the
   * set anyway), else in the system's temporary folder.
   */
  private Path temporaryFolder() {
    Location out = Location.parse(c.prefix);
    try {
      if (out.isLocal()) {
        Path parent = out.path().toAbsolutePath().getParent();
        if (parent != null) {
          Files.createDirectories(parent);
          return Files.createTempDirectory(parent, ".im2rec-");
        }
      }
      return Files.createTempDirectory("minibatch-im2rec-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary folder beside " + c.prefix + ": " + e.getMessage(), e);
    }
  }

  /** Deletes the temporary folder and the files Im2Rec wrote in it. */
  private static void delete(Path temp) {
    try (Stream<Path> s = Files.list(temp)) {
      for (Path f : s.toList()) {
        Files.deleteIfExists(f);
      }
      Files.deleteIfExists(temp);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the temporary folder " + temp + ": " + e.getMessage(), e);
    }
  }
}
