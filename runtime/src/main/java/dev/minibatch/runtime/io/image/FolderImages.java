package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.io.FileFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Images in a folder with one sub-folder per class (torchvision's {@code ImageFolder}, im2rec's
 * folder mode): classes are the sub-folders' names in sorted order, labelled 0, 1, ...; images are
 * the files with an image extension in each, sorted by name (both by {@link #NAME_ORDER}); the label width is 1. Other files are
 * ignored, but a class folder without images is an error (so a typo in a folder's name is not
 * silently an empty class), and so is a folder without class folders: {@link FileFormatException}s
 * naming the folder, since what is wrong is what it holds.
 */
final class FolderImages extends ImageSource {
  /** The extensions im2rec accepts, and the other formats OpenCV decodes. */
  static final Set<String> EXTENSIONS = Set.of(".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".ppm",
      ".pgm", ".pbm", ".jp2");

  private final Path root;
  private final List<String> classes;
  private final List<Path> files;
  private final int[] labels;

  /**
   * The images under {@code root}, listed once.
   *
   * @throws IllegalArgumentException if {@code root} is not a directory (a wrong setting)
   * @throws FileFormatException naming {@code root} if it has no class folder, or one without images
   */
  FolderImages(Path root) {
    this.root = root;
    if (!Files.isDirectory(root)) {
      throw new IllegalArgumentException("image folder " + root + " is not a directory");
    }
    List<String> names = new ArrayList<>();
    List<Path> found = new ArrayList<>();
    List<Integer> classOf = new ArrayList<>();
    for (Path dir : sorted(root)) {
      if (!Files.isDirectory(dir)) {
        continue;
      }
      List<Path> images = new ArrayList<>();
      for (Path f : sorted(dir)) {
        if (Files.isRegularFile(f) && isImage(f)) {
          images.add(f);
        }
      }
      if (images.isEmpty()) {
        throw new FileFormatException(root.toString(), "class folder '" + dir.getFileName() + "' holds no image files ("
            + String.join(", ", new java.util.TreeSet<>(EXTENSIONS)) + ")");
      }
      for (Path f : images) {
        found.add(f);
        classOf.add(names.size());
      }
      names.add(dir.getFileName().toString());
    }
    if (names.isEmpty()) {
      throw new FileFormatException(root.toString(), "the image folder has no class sub-folders; expected "
          + root + "/<class>/<image files>");
    }
    this.classes = List.copyOf(names);
    this.files = List.copyOf(found);
    this.labels = classOf.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Names by their UTF-8 bytes, unsigned: the order of {@code Path}s of one folder on Linux, kept as
   * a rule of its own so that a listing of the same folder elsewhere (Spark) labels it the same.
   */
  static final Comparator<String> NAME_ORDER = (a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
      b.getBytes(StandardCharsets.UTF_8));

  static boolean isImage(Path f) {
    return isImage(f.getFileName().toString());
  }

  static boolean isImage(String fileName) {
    String n = fileName.toLowerCase(Locale.ROOT);
    int dot = n.lastIndexOf('.');
    return dot >= 0 && EXTENSIONS.contains(n.substring(dot));
  }

  static List<Path> sorted(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted(Comparator.comparing(p -> p.getFileName().toString(), NAME_ORDER)).toList();
    } catch (IOException e) {
      throw IoFailure.of("list", dir, e);
    }
  }

  /** The image files in label order. */
  List<Path> files() {
    return files;
  }

  /** The label of file {@code i}. */
  int label(int i) {
    return labels[i];
  }

  @Override
  List<String> classes() {
    return classes;
  }

  @Override
  int size() {
    return files.size();
  }

  @Override
  int labelWidth() {
    return 1;
  }

  @Override
  String name() {
    return root.toString();
  }

  @Override
  void read(int i, Encoded into) {
    Path f = files.get(i);
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.READ)) {
      long size = c.size();
      if (size == 0 || size > Integer.MAX_VALUE - 8) {
        throw new FileFormatException(f.toString(), "is " + size + " bytes; an image file must hold 1 byte to 2 GiB");
      }
      ByteBuffer b = into.buffer;
      if (b.capacity() < size) {
        b = ByteBuffer.allocateDirect((int) Math.max(size, 2L * b.capacity()));
        into.buffer = b;
      }
      b.clear().limit((int) size);
      long at = 0;
      while (b.hasRemaining()) {
        int n = c.read(b, at);
        if (n < 0) {
          throw new FileFormatException(f.toString(), "ended after " + at + " of " + size + " bytes while being read");
        }
        at += n;
      }
      b.flip();
    } catch (IOException e) {
      throw IoFailure.of("read", f, e);
    }
    into.offset = 0;
    into.length = into.buffer.limit();
    into.id = i;
    into.labels[0] = labels[i];
  }

  @Override
  FileFormatException error(int i, Encoded read, String message, @org.jspecify.annotations.Nullable Throwable cause) {
    return new FileFormatException(files.get(i).toString(), message, cause);
  }

  @Override
  public void close() {}
}
