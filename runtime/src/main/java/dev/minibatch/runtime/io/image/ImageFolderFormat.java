package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.LocalFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A folder with one sub-folder of images per class (torchvision's ImageFolder, im2rec's input), read
 * by {@link FolderImages} as {@link ImageRecordProvider.Builder#imageFolder(Path)} reads it: classes
 * in sorted order, files in sorted order, label = class index. A {@link java.util.ServiceLoader}
 * service of {@link Format}.
 */
public final class ImageFolderFormat implements LocalFormat {
  /** The format; also what {@link ImageRecordProvider#folderFormat()} returns. */
  public ImageFolderFormat() {}

  @Override
  public int probeOrder() {
    return FOLDER_ORDER;
  }

  @Override
  public String name() {
    return "folder";
  }

  /**
   * A directory with a class sub-folder holding an image file ({@code head} is empty for a
   * directory). Stops at the first image: describe and validate walk the whole tree and name what
   * is wrong with it (an empty class folder, say).
   */
  @Override
  public boolean probe(Path file, byte[] head) {
    return Files.isDirectory(file) && firstImage(file) != null;
  }

  /** The first image file of the first class folder that has one, in sorted order, or null. */
  private static @Nullable Path firstImage(Path root) {
    for (Path dir : FolderImages.sorted(root)) {
      if (Files.isDirectory(dir)) {
        for (Path f : FolderImages.sorted(dir)) {
          if (Files.isRegularFile(f) && FolderImages.isImage(f)) {
            return f;
          }
        }
      }
    }
    return null;
  }

  private static FolderImages open(Path root) {
    try {
      return new FolderImages(root);
    } catch (IllegalArgumentException e) {
      throw new FileFormatException(root.toString(), e.getMessage(), e);
    }
  }

  private static ImageProbe probe(Path image) {
    try {
      return ImageProbe.of(ByteBuffer.wrap(Files.readAllBytes(image)));
    } catch (IOException e) {
      throw IoFailure.of("read", image, e);
    }
  }

  @Override
  public Report describe(Path file, Options options) {
    FolderImages images = open(file);
    Report r = new Report();
    r.field("format", "image folder (one sub-folder per class, labels in sorted class order)");
    r.field("images", Integer.toString(images.size()));
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String c : images.classes()) {
      counts.put(c, 0L);
    }
    for (int i = 0; i < images.size(); i++) {
      counts.merge(images.classes().get(images.label(i)), 1L, Long::sum);
    }
    r.histogram("classes", counts);
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < Math.min(options.rows(), images.size()); i++) {
      Path f = images.files().get(i);
      rows.add("#" + i + ": label " + images.label(i) + ", " + file.relativize(f) + ", " + probe(f));
    }
    r.rows("first rows", rows);
    return r;
  }

  /** Decodes every image, reporting each one OpenCV cannot decode or that is a corrupt JPEG, by its path. */
  @Override
  public void validate(Path file, Options options, Problems problems) {
    FolderImages images;
    try {
      images = open(file);
    } catch (FileFormatException e) {
      problems.report(e, e.file());
      return;
    }
    for (Path f : images.files()) {
      if (problems.isFull()) {
        return;
      }
      String problem = probe(f).problem();
      if (problem != null) {
        problems.report(f.toString(), problem);
      }
    }
  }

  /**
   * {@link ImageRecordProvider} over the folder at the first image's size and channels, in batches
   * of at most all its images (MXNet's round_batch needs a batch of samples); {@link ImageOptions}
   * are applied last.
   */
  @Override
  public BatchProvider<? extends Batch> provider(Path file, Options options) {
    FolderImages images = open(file);
    Path first = images.files().get(0);
    return probe(first).providerAtThisSize(first.toString(), "").imageFolder(file)
        .settings(options.settings()).batchSize(Math.min(options.batchSize(), images.size()))
        .apply(options.get(ImageOptions.class, ImageOptions.NONE).builder()).build();
  }

}
