package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.nd4j.JavaArrays;
import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import io.jhdf.exceptions.HdfException;
import io.jhdf.exceptions.HdfFilterException;
import io.jhdf.exceptions.HdfInvalidPathException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Reads whole HDF5 datasets into INDArrays of their own element type (int8, int16, int32, int64,
 * float32, float64; float16 is widened by jhdf), axis 0 being the sample axis. Errors name the file
 * and the dataset: a missing file or dataset (listing the datasets there are), a group where a
 * dataset was expected, a scalar dataset, datasets of one file with different sample counts, a
 * compression filter jhdf cannot decode.
 */
public final class Hdf5Reader {
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
    if (!Files.exists(file)) {
      throw new UncheckedIOException("HDF5 file " + file + " (datasets " + datasets + ") does not exist",
          new NoSuchFileException(file.toString()));
    }
    Map<String, INDArray> out = new LinkedHashMap<>();
    try (HdfFile hdf = new HdfFile(file)) {
      for (String name : datasets) {
        try {
          out.put(name, readDataset(hdf, file, name));
        } catch (HdfFilterException e) {
          throw new FileFormatException(file.toString(), "dataset '" + name + "' uses a compression filter that cannot be "
              + "decoded: " + e.getMessage() + ". Rewrite it with gzip (deflate) or without compression", e);
        } catch (HdfException e) {
          throw new FileFormatException(file.toString(), "cannot read dataset '" + name + "': " + e.getMessage(), e);
        }
      }
    } catch (HdfException e) {
      throw new FileFormatException(file.toString(), "cannot read HDF5 file (datasets " + datasets + "): " + e.getMessage(), e);
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

  private static INDArray readDataset(HdfFile hdf, Path file, String name) {
    Node node;
    try {
      node = hdf.getByPath(name);
    } catch (HdfInvalidPathException e) {
      throw new FileFormatException(file.toString(), "no dataset '" + name + "'; the datasets in this file are "
          + datasetPaths(hdf), e);
    }
    if (!(node instanceof Dataset)) {
      throw new FileFormatException(file.toString(), "'" + name + "' is a " + node.getType().toString().toLowerCase(java.util.Locale.ROOT)
          + ", not a dataset; the datasets in this file are " + datasetPaths(hdf));
    }
    Dataset ds = (Dataset) node;
    if (ds.isScalar() || ds.getDimensions().length == 0) {
      throw new FileFormatException(file.toString(), "dataset '" + name + "' is a scalar; axis 0 must be the sample axis");
    }
    if (ds.isCompound() || ds.isVariableLength() || !ds.getJavaType().isPrimitive()) {
      throw new FileFormatException(file.toString(), "dataset '" + name + "' holds " + ds.getJavaType().getSimpleName()
          + " elements; only numeric datasets are supported");
    }
    Object flat = ds.getDataFlat();
    if (flat instanceof boolean[] || flat instanceof char[]) {
      throw new FileFormatException(file.toString(), "dataset '" + name + "' holds " + flat.getClass().getComponentType()
          + " elements; only numeric datasets are supported");
    }
    INDArray a = JavaArrays.toINDArray(flat, "dataset '" + name + "' of " + file);
    return a.reshape('c', ds.getDimensionsAsLong());
  }

  /** Every dataset path in the file, depth first. */
  public static List<String> datasetPaths(HdfFile hdf) {
    List<String> out = new ArrayList<>();
    collect(hdf, out);
    return out;
  }

  private static void collect(Group group, List<String> out) {
    for (Node n : group) {
      if (n.isLink()) {
        continue;
      }
      if (n instanceof Dataset) {
        String p = n.getPath();
        out.add(p.startsWith("/") ? p.substring(1) : p);
      } else if (n instanceof Group) {
        collect((Group) n, out);
      }
    }
  }
}
