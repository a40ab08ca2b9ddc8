package dev.minibatch.spark;

import dev.minibatch.runtime.check.IoFailure;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.dataset.ExistingMiniBatchDataSetIterator;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.MultiDataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;

/**
 * Batch files written by {@link SparkBatches#save}, read back on one machine. {@code DataSet} files
 * are named {@code dataset-<n>.bin}, the names ND4J's {@link ExistingMiniBatchDataSetIterator}
 * reads (and DL4J's {@code fitPaths} takes any); {@code MultiDataSet} files {@code
 * multidataset-<n>.bin}, read here in batch order.
 */
public final class SavedBatches {
  private SavedBatches() {}

  /** The file name of batch {@code batch} in {@code format}. */
  public static String fileName(SparkBatches.Format format, int batch) {
    return String.format(Locale.ROOT, format == SparkBatches.Format.DATA_SET ? "dataset-%d.bin" : "multidataset-%d.bin",
        batch);
  }

  /** The {@code DataSet} files of {@code dir} in batch order (ND4J's reader of {@code dataset-<n>.bin}). */
  public static DataSetIterator dataSets(Path dir) {
    return new ExistingMiniBatchDataSetIterator(dir.toFile(), "dataset-%d.bin");
  }

  /** The {@code MultiDataSet} files of {@code dir} in batch order, for SameDiff's {@code fit}. */
  public static MultiDataSetIterator multiDataSets(Path dir) {
    return new FileIterator(dir);
  }

  /** Counts {@code multidataset-<n>.bin} files from n = 0 until one is missing; loads each on {@code next()}. */
  private static final class FileIterator implements MultiDataSetIterator {
    private static final long serialVersionUID = 1L;
    private final Path dir;
    private int next;
    private @Nullable MultiDataSetPreProcessor preProcessor;

    FileIterator(Path dir) {
      if (!java.nio.file.Files.isDirectory(dir)) {
        throw new IllegalArgumentException("no batch directory " + dir);
      }
      this.dir = dir;
    }

    private Path file(int n) {
      return dir.resolve(fileName(SparkBatches.Format.MULTI_DATA_SET, n));
    }

    @Override
    public boolean hasNext() {
      return java.nio.file.Files.isRegularFile(file(next));
    }

    @Override
    public MultiDataSet next() {
      if (!hasNext()) {
        throw new NoSuchElementException("no " + file(next));
      }
      org.nd4j.linalg.dataset.MultiDataSet m = new org.nd4j.linalg.dataset.MultiDataSet();
      try {
        m.load(file(next).toFile());
      } catch (IOException e) {
        throw IoFailure.of("read", file(next), e);
      }
      next++;
      MultiDataSetPreProcessor p = preProcessor;
      if (p != null) {
        p.preProcess(m);
      }
      return m;
    }

    @Override
    public MultiDataSet next(int num) {
      throw new UnsupportedOperationException("next(" + num + "): the batches are as saved");
    }

    @Override
    public void setPreProcessor(MultiDataSetPreProcessor preProcessor) {
      this.preProcessor = preProcessor;
    }

    @Override
    public @Nullable MultiDataSetPreProcessor getPreProcessor() {
      return preProcessor;
    }

    @Override
    public boolean resetSupported() {
      return true;
    }

    @Override
    public boolean asyncSupported() {
      return true;
    }

    @Override
    public void reset() {
      next = 0;
    }
  }
}
