package dev.minibatch.runtime.io.mnist;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.LocalFormat;
import dev.minibatch.runtime.io.Format.Options;
import dev.minibatch.runtime.io.Format.Problems;
import dev.minibatch.runtime.io.Format.Report;
import dev.minibatch.runtime.io.idx.IdxFile;
import dev.minibatch.runtime.io.idx.IdxFile.IdxArray;
import dev.minibatch.runtime.io.idx.IdxFile.IdxType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * idx files (MNIST's format), read by the runtime's {@link IdxFile}. An MNIST images file finds
 * its labels file beside it ({@code t10k-images-idx3-ubyte.gz} → {@code t10k-labels-idx1-ubyte.gz}),
 * or takes {@link IdxOptions#labels()}. A {@link java.util.ServiceLoader} service of {@link Format}.
 */
public final class IdxFormat implements LocalFormat {
  /** The format; also what {@link MnistProvider#format()} returns. */
  public IdxFormat() {}

  @Override
  public int probeOrder() {
    return IDX_ORDER;
  }

  @Override
  public String name() {
    return "idx";
  }

  @Override
  public boolean probe(Path file, byte[] head) {
    return head.length >= 4 && head[0] == 0 && head[1] == 0 && IdxType.ofCode(head[2] & 0xff) != null
        && (head[3] & 0xff) >= 1;
  }

  @Override
  public Report describe(Path file, Options options) {
    IdxArray a = IdxFile.read(file);
    Report r = new Report();
    int magic = a.type().magic(a.rank());
    String kind = magic == IdxFile.MNIST_IMAGES_MAGIC ? ", MNIST images" : magic == IdxFile.MNIST_LABELS_MAGIC
        ? ", MNIST labels" : "";
    r.field("format", "idx (magic " + magic + kind + ")");
    r.field("element type", a.type().name().toLowerCase(java.util.Locale.ROOT) + " (" + a.type().dtype() + ")");
    long[] dims = java.util.Arrays.stream(a.dims()).asLongStream().toArray();
    r.field("shape", Report.shape(dims));
    r.field("samples", Integer.toString(a.count()));
    r.field("sample shape", Report.shape(java.util.Arrays.copyOfRange(dims, 1, dims.length)));
    r.field("values", Report.summary(i -> a.getDouble(i), (int) Math.min(Integer.MAX_VALUE, a.size())));
    IdxArray labels = null;
    if (a.rank() == 1 && a.type() != IdxType.FLOAT32 && a.type() != IdxType.FLOAT64) {
      labels = a;
    } else {
      Path l = labelsFor(file, options);
      if (l != null) {
        labels = IdxFile.read(l, IdxFile.MNIST_LABELS_MAGIC);
        r.field("labels", l + " (" + labels.count() + " labels)");
        if (labels.count() != a.count()) {
          r.field("warning", "the labels file has " + labels.count() + " labels for " + a.count() + " samples");
        }
      }
    }
    if (labels != null) {
      r.histogram("classes", Report.counts(labels::getDouble, labels.count()));
    }
    List<String> rows = new ArrayList<>();
    int size = a.sampleSize();
    for (int s = 0; s < Math.min(options.rows(), a.count()); s++) {
      long base = (long) s * size;
      String label = labels != null && labels != a && s < labels.count() ? "label " + Report.number(labels.getDouble(s)) + ", " : "";
      rows.add("#" + s + ": " + label + (a.rank() == 1 ? Report.number(a.getDouble(s))
          : Report.summary(i -> a.getDouble(base + i), size) + ", " + Report.values(i -> a.getDouble(base + i), size, 8)));
    }
    r.rows("first rows", rows);
    return r;
  }

  @Override
  public void validate(Path file, Options options, Problems problems) {
    IdxArray a;
    try {
      a = IdxFile.read(file);
    } catch (FileFormatException e) {
      problems.report(e, e.file());
      return;
    }
    if (a.type() == IdxType.FLOAT32 || a.type() == IdxType.FLOAT64) {
      int size = a.sampleSize();
      for (int s = 0; s < a.count() && !problems.isFull(); s++) {
        for (int k = 0; k < size; k++) {
          double v = a.getDouble((long) s * size + k);
          if (!Double.isFinite(v)) {
            problems.report(file + ": record " + s, "element " + k + " is " + v);
          }
        }
      }
    }
    if (a.rank() > 1 || a.type() == IdxType.FLOAT32 || a.type() == IdxType.FLOAT64) {
      Path l = labelsFor(file, options);
      if (l != null) {
        try {
          IdxArray labels = IdxFile.read(l, IdxFile.MNIST_LABELS_MAGIC);
          if (labels.count() != a.count()) {
            problems.report(l.toString(), "has " + labels.count() + " labels, the images file " + file + " has "
                + a.count() + " images");
          }
        } catch (FileFormatException e) {
          problems.report(e, e.file());
        }
      }
    }
  }

  @Override
  public BatchProvider<? extends Batch> provider(Path file, Options options) {
    Path l = labelsFor(file, options);
    if (l != null) {
      return MnistProvider.builder().image(file).label(l).settings(options.settings()).build();
    }
    IdxArray a = IdxFile.read(file);
    long[] dims = java.util.Arrays.stream(a.dims()).asLongStream().toArray();
    return ArrayDataProvider.builder().data(a.toFloatINDArray(1f, dims)).settings(options.settings()).build();
  }

  /** {@link IdxOptions#labels()}, or the MNIST labels file beside an images file, or null. */
  static @Nullable Path labelsFor(Path file, Options options) {
    Path given = options.get(IdxOptions.class, IdxOptions.DETECTED).labels();
    if (given != null) {
      return given;
    }
    String name = file.getFileName().toString();
    if (!name.contains("images-idx3")) {
      return null;
    }
    Path sibling = file.resolveSibling(name.replace("images-idx3", "labels-idx1"));
    return Files.isRegularFile(sibling) ? sibling : null;
  }
}
