package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.internal.io.GzipContent;
import dev.minibatch.runtime.internal.nd4j.JavaArrays;
import dev.minibatch.runtime.io.FileFormatException;
import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.jhdf.api.Node;
import io.jhdf.api.dataset.ChunkedDataset;
import io.jhdf.filter.PipelineFilterWithData;
import java.io.UncheckedIOException;
import java.lang.reflect.Array;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Reads whole HDF5 datasets into INDArrays of their own element type (int8, int16, int32, int64,
 * float32, float64; float16 is widened by jhdf), axis 0 being the sample axis. Errors name the file
 * and the dataset: a missing file or dataset (listing the datasets there are), a group where a
 * dataset was expected, a scalar dataset, an extent of 0, datasets of one file with different
 * sample counts, a compression filter jhdf cannot decode, and every way a corrupt file can fail.
 *
 * <p>Hostile files are read with bounded cost. The file is opened so that jhdf cannot allocate more
 * than the file holds to read its structure ({@link Hdf5Files}); paths are resolved with at most
 * {@value Hdf5Paths#MAX_LINK_HOPS} soft links, so link cycles end in an error; and before a
 * dataset's data is read, its declared size is checked against what the file can hold: its bytes
 * for uncompressed data, {@value GzipContent#MAX_RATIO} times its bytes (deflate's largest
 * expansion) for each compressing filter of compressed data. A dataset whose storage was never written (its values implied by a
 * fill value) is therefore only read when it fits in the file's size.
 */
final class Hdf5Reader {
  /** HDF5's filter ids of the byte shuffle and the Fletcher32 checksum. */
  private static final int SHUFFLE = 2;
  private static final int FLETCHER32 = 3;

  private Hdf5Reader() {}

  /** Reads one dataset ({@code path} like {@code "group/name"}). */
  public static INDArray read(Path file, String dataset) {
    return readAll(file, List.of(dataset)).get(dataset);
  }

  /**
   * Reads {@code datasets} of {@code file}, in order, and checks that they have the same number of
   * samples (extent of axis 0).
   *
   * @throws UncheckedIOException naming the file (and the datasets) if it does not exist
   * @throws FileFormatException naming file and dataset for every content error
   */
  public static Map<String, INDArray> readAll(Path file, List<String> datasets) {
    HdfFile hdf = Hdf5Files.open(file, datasets);
    Map<String, INDArray> out = new LinkedHashMap<>();
    try {
      long fileBytes = Jhdf.call(file, "the file size", hdf::size);
      Hdf5Paths paths = new Hdf5Paths(hdf, file);
      for (String name : datasets) {
        out.put(name, readDataset(paths, file, fileBytes, name));
      }
    } finally {
      Hdf5Files.close(hdf);
    }
    String first = null;
    for (Map.Entry<String, INDArray> e : out.entrySet()) {
      if (first == null) {
        first = e.getKey();
      } else if (e.getValue().size(0) != out.get(first).size(0)) {
        throw new FileFormatException(file.toString(), "datasets have different sample counts (axis 0): '" + first
            + "' has " + out.get(first).size(0) + " samples, '" + e.getKey() + "' has " + e.getValue().size(0));
      }
    }
    return out;
  }

  /**
   * Every dataset path in {@code file}, depth first, without a leading '/'; links are not followed.
   *
   * @throws UncheckedIOException naming the file if it does not exist
   * @throws FileFormatException naming the file if it is not HDF5 or a group cannot be read
   */
  public static List<String> datasets(Path file) {
    HdfFile hdf = Hdf5Files.open(file, "(all)");
    try {
      return new Hdf5Paths(hdf, file).datasets();
    } finally {
      Hdf5Files.close(hdf);
    }
  }

  private static INDArray readDataset(Hdf5Paths paths, Path file, long fileBytes, String name) {
    String what = "dataset '" + name + "'";
    Node node = paths.resolve(name);
    if (node == null) {
      throw new FileFormatException(file.toString(), "no dataset '" + name + "'; the datasets in this file are "
          + listing(paths));
    }
    if (!(node instanceof Dataset)) {
      String type = Jhdf.call(file, "'" + name + "'", () -> node.getType().toString().toLowerCase(Locale.ROOT));
      throw new FileFormatException(file.toString(), "'" + name + "' is a " + type + ", not a dataset; the datasets in "
          + "this file are " + listing(paths));
    }
    Dataset ds = (Dataset) node;
    long[] dims = Jhdf.call(file, what, () -> ds.isScalar() ? new long[0] : ds.getDimensionsAsLong());
    if (dims.length == 0) {
      throw new FileFormatException(file.toString(), what + " is a scalar; axis 0 must be the sample axis");
    }
    boolean numeric = Jhdf.call(file, what, () -> !ds.isCompound() && !ds.isVariableLength() && ds.getJavaType().isPrimitive()
        && ds.getJavaType() != boolean.class && ds.getJavaType() != char.class);
    if (!numeric) {
      String type = Jhdf.call(file, what, () -> ds.getJavaType().getSimpleName());
      throw new FileFormatException(file.toString(), what + " holds " + type + " elements; only numeric datasets are "
          + "supported");
    }
    long elements = checkExtents(file, what, dims, "shape");
    int elementBytes = Jhdf.call(file, what, () -> ds.getDataType().getSize());
    long expansion = Jhdf.call(file, what, () -> expansion(ds.getFilters()));
    long limit = fileBytes > GzipContent.MAX_ARRAY / expansion ? GzipContent.MAX_ARRAY : fileBytes * expansion;
    String holds = expansion > 1 ? "the " + fileBytes + "-byte file can hold compressed (its filters expand at most "
        + expansion + " times)" : "the " + fileBytes + "-byte file holds";
    checkBytes(file, what + " declares shape " + Arrays.toString(dims), elements, elementBytes, limit, holds);
    if (ds instanceof ChunkedDataset) {
      int[] chunk = Jhdf.call(file, what, ((ChunkedDataset) ds)::getChunkDimensions);
      long[] chunkDims = Arrays.stream(chunk).asLongStream().toArray();
      long chunkElements = checkExtents(file, what, chunkDims, "chunk shape");
      checkBytes(file, what + " declares chunks of shape " + Arrays.toString(chunk), chunkElements, elementBytes, limit, holds);
    }
    Object flat = Jhdf.call(file, what, ds::getDataFlat);
    if (!flat.getClass().isArray() || !flat.getClass().getComponentType().isPrimitive() || Array.getLength(flat) != elements) {
      // jhdf returns an empty Object[] for a chunked dataset without chunks.
      throw new FileFormatException(file.toString(), what + " declares " + elements + " elements, its storage holds "
          + (flat.getClass().isArray() ? Array.getLength(flat) : 0) + (flat instanceof Object[] ? " (no chunks stored)" : ""));
    }
    INDArray a = JavaArrays.toINDArray(flat, what + " of " + file);
    return a.reshape('c', dims);
  }

  /**
   * The element count of {@code dims}: every extent positive (axis 0 holds the samples, the others
   * one sample's elements) and the count at most one Java array's length.
   */
  private static long checkExtents(Path file, String what, long[] dims, String kind) {
    long n = 1;
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] <= 0) {
        throw new FileFormatException(file.toString(), what + " has " + kind + " " + Arrays.toString(dims) + ": axis " + i
            + " has extent " + dims[i] + (i == 0 && kind.equals("shape") ? ", so it holds no samples" : "; every extent must "
            + "be positive"));
      }
      if (n > GzipContent.MAX_ARRAY / dims[i]) {
        throw new FileFormatException(file.toString(), what + " has " + kind + " " + Arrays.toString(dims) + ", more than "
            + GzipContent.MAX_ARRAY + " elements; a dataset is read into one Java array");
      }
      n *= dims[i];
    }
    return n;
  }

  /** Checks {@code elements} of {@code elementBytes} against {@code limit}, before anything is allocated. */
  private static void checkBytes(Path file, String what, long elements, int elementBytes, long limit, String holds) {
    if (elementBytes <= 0) {
      throw new FileFormatException(file.toString(), what + " with elements of " + elementBytes + " bytes; expected a "
          + "positive element size");
    }
    long bytes = elements * elementBytes;
    if (bytes > limit || bytes > GzipContent.MAX_ARRAY) {
      throw new FileFormatException(file.toString(), what + " of " + elementBytes + "-byte elements = " + bytes
          + " bytes, more than " + holds + "; the extents are corrupt or the storage was never written");
    }
  }

  /**
   * The most a filter pipeline can expand its input: {@value GzipContent#MAX_RATIO} (deflate's
   * largest expansion, more than LZF's or LZ4's) for every compressing filter, 1 for the shuffles
   * and checksums, which keep the size (Fletcher32 even adds four bytes).
   */
  private static long expansion(List<PipelineFilterWithData> filters) {
    long x = 1;
    for (PipelineFilterWithData f : filters) {
      boolean keepsSize = f.getId() == SHUFFLE || f.getId() == FLETCHER32;
      if (!keepsSize) {
        x = Math.min(x * GzipContent.MAX_RATIO, GzipContent.MAX_ARRAY);
      }
    }
    return x;
  }

  /** The datasets there are, for a message; a listing that itself fails says so instead. */
  private static String listing(Hdf5Paths paths) {
    try {
      List<String> all = paths.datasets();
      return all.size() <= 50 ? all.toString() : all.subList(0, 50) + " and " + (all.size() - 50) + " more";
    } catch (FileFormatException e) {
      return "unknown (the groups cannot be listed: " + e.getMessage() + ")";
    }
  }
}
