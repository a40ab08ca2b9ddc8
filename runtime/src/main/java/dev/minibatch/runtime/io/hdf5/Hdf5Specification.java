package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.internal.engine.RowSource;
import dev.minibatch.runtime.spi.DTypes;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.SampleProcessor.Sample;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Reads what a sample specification selects (Data Provider Core's {@code [file, [datasets], class
 * name, sampling probability]} entries): every entry's datasets, the rows that skip, the filters and
 * max keep, checked to agree in shape, laid out entry by entry (class by class, stably, when
 * drawing by class probability), with the class labels. The provider's builder turns the result
 * into a provider.
 */
final class Hdf5Specification {
  /**
   * The selected samples.
   *
   * @param data the provided arrays by name, as row sources
   * @param label the label row source by its name
   * @param classes the class names by index, in order of first appearance
   * @param classCounts the samples of each class
   * @param probabilities the sampling probability of each class, or null when no entry gives one
   * @param parts each entry's kept rows, in layout order
   */
  record Selected(Map<String, RowSource> data, Map<String, RowSource> label, List<String> classes, int[] classCounts,
      double @Nullable [] probabilities, List<Hdf5Provider.Part> parts) {}

  private final List<Hdf5Provider.Entry> entries;
  private final @Nullable List<String> names;
  private final String labelName;
  private final boolean oneHot;
  private final int skip;
  private final int max;
  private final @Nullable Predicate<Sample> filter;
  private final Map<String, Predicate<Sample>> filters;

  Hdf5Specification(List<Hdf5Provider.Entry> entries, @Nullable List<String> names, String labelName, boolean oneHot,
      int skip, int max, @Nullable Predicate<Sample> filter, Map<String, Predicate<Sample>> filters) {
    this.entries = List.copyOf(entries);
    this.names = names;
    this.labelName = labelName;
    this.oneHot = oneHot;
    this.skip = skip;
    this.max = max;
    this.filter = filter;
    this.filters = new LinkedHashMap<>(filters);
  }

  /** Reads the files. */
  Selected read() {
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("empty sample specification: add(file, datasets, className) at least once");
    }
    int k = entries.get(0).datasets().size();
    List<String> provided = names != null ? names : entries.get(0).datasets();
    if (provided.size() != k || provided.contains(labelName)) {
      throw new IllegalArgumentException("names " + provided + " must be " + k + " distinct names other than the label name '"
          + labelName + "'");
    }
    List<String> classes = new ArrayList<>();
    List<List<INDArray>> parts = new ArrayList<>();
    List<Integer> partClasses = new ArrayList<>();
    List<Hdf5Provider.Part> partInfo = new ArrayList<>();
    long[][] sampleShapes = null;
    for (Hdf5Provider.Entry e : entries) {
      if (e.datasets().size() != k) {
        throw new IllegalArgumentException(e.file() + ": lists " + e.datasets().size() + " datasets " + e.datasets()
            + ", the first entry lists " + k);
      }
      Map<String, INDArray> arrays = Hdf5Reader.readAll(e.file(), e.datasets());
      List<INDArray> list = new ArrayList<>(arrays.values());
      if (sampleShapes == null) {
        sampleShapes = new long[k][];
        for (int i = 0; i < k; i++) {
          sampleShapes[i] = Arrays.copyOfRange(list.get(i).shape(), 1, list.get(i).rank());
        }
      }
      for (int i = 0; i < k; i++) {
        long[] s = Arrays.copyOfRange(list.get(i).shape(), 1, list.get(i).rank());
        if (!Arrays.equals(s, sampleShapes[i])) {
          throw new FileFormatException(e.file().toString(), "dataset '" + e.datasets().get(i) + "' has samples of shape "
              + Arrays.toString(s) + ", the first entry's '" + provided.get(i) + "' has " + Arrays.toString(sampleShapes[i]));
        }
        // The entries' rows are concatenated into one array: their element types must agree.
        if (!parts.isEmpty() && list.get(i).dataType() != parts.get(0).get(i).dataType()) {
          throw new FileFormatException(e.file().toString(), "dataset '" + e.datasets().get(i) + "' holds "
              + DTypes.fromNd4j(list.get(i).dataType()) + " elements, the first entry's '" + provided.get(i) + "' holds "
              + DTypes.fromNd4j(parts.get(0).get(i).dataType()));
        }
      }
      int cls = classes.indexOf(e.className());
      if (cls < 0) {
        classes.add(e.className());
        cls = classes.size() - 1;
      }
      long[] kept = select(list, provided, e.className(), e.file(), e.datasets());
      parts.add(take(list, kept));
      partClasses.add(cls);
      partInfo.add(new Hdf5Provider.Part(e.file(), e.datasets(), cls, kept));
    }
    double[] probability = probabilities(classes);
    if (probability != null) {
      // Draws need each class's samples together: order the entries by class, stably.
      List<Integer> byClass = new ArrayList<>();
      for (int p = 0; p < parts.size(); p++) {
        byClass.add(p);
      }
      byClass.sort(java.util.Comparator.comparingInt(partClasses::get));
      List<List<INDArray>> sortedParts = new ArrayList<>();
      List<Integer> sortedClasses = new ArrayList<>();
      List<Hdf5Provider.Part> sortedInfo = new ArrayList<>();
      for (int p : byClass) {
        sortedParts.add(parts.get(p));
        sortedClasses.add(partClasses.get(p));
        sortedInfo.add(partInfo.get(p));
      }
      parts = sortedParts;
      partClasses = sortedClasses;
      partInfo = sortedInfo;
    }
    Map<String, RowSource> data = new LinkedHashMap<>();
    for (int i = 0; i < k; i++) {
      List<INDArray> rows = new ArrayList<>();
      for (List<INDArray> p : parts) {
        if (p.get(i).size(0) > 0) {
          rows.add(p.get(i));
        }
      }
      if (rows.isEmpty()) {
        throw new IllegalArgumentException("no samples left after skip, filter and max");
      }
      data.put(provided.get(i), RowSource.of(rows.size() == 1 ? rows.get(0) : Nd4j.concat(0, rows.toArray(new INDArray[0]))));
    }
    int n = data.values().iterator().next().rows();
    float[] labels = new float[oneHot ? n * classes.size() : n];
    int[] classCounts = new int[classes.size()];
    int row = 0;
    for (int p = 0; p < parts.size(); p++) {
      long count = parts.get(p).get(0).size(0);
      classCounts[partClasses.get(p)] += (int) count;
      for (long r = 0; r < count; r++, row++) {
        if (oneHot) {
          labels[row * classes.size() + partClasses.get(p)] = 1f;
        } else {
          labels[row] = partClasses.get(p);
        }
      }
    }
    Map<String, RowSource> label = new LinkedHashMap<>();
    label.put(labelName, RowSource.of(Nd4j.create(labels, oneHot ? new long[] {n, classes.size()} : new long[] {n}, 'c')));
    return new Selected(data, label, classes, classCounts, probability, partInfo);
  }

  /** The probability of each class, or null when no entry gives one. */
  private double @Nullable [] probabilities(List<String> classes) {
    boolean any = entries.stream().anyMatch(e -> !Double.isNaN(e.probability()));
    if (!any) {
      return null;
    }
    double[] p = new double[classes.size()];
    java.util.Arrays.fill(p, Double.NaN);
    for (Hdf5Provider.Entry e : entries) {
      if (Double.isNaN(e.probability())) {
        throw new IllegalArgumentException(e.file() + ": entry of class '" + e.className() + "' has no sampling probability; "
            + "once one entry has one, every entry needs one");
      }
      int c = classes.indexOf(e.className());
      if (!Double.isNaN(p[c]) && p[c] != e.probability()) {
        throw new IllegalArgumentException(e.file() + ": class '" + e.className() + "' has sampling probability "
            + e.probability() + " here but " + p[c] + " in an earlier entry");
      }
      p[c] = e.probability();
    }
    return p;
  }

  /** The file rows of one entry that skip, the filters and max keep. */
  private long[] select(List<INDArray> arrays, List<String> provided, String className, Path file, List<String> datasets) {
    long count = arrays.get(0).size(0);
    Predicate<Sample> perClass = filters.get(className);
    List<Long> keep = new ArrayList<>();
    for (long r = skip; r < count && keep.size() < max; r++) {
      if (filter != null || perClass != null) {
        List<INDArray> rows = new ArrayList<>();
        for (INDArray a : arrays) {
          rows.add(a.slice(r, 0));
        }
        Sample s = new Sample((int) r, provided, rows);
        boolean accepted;
        try {
          accepted = (filter == null || filter.test(s)) && (perClass == null || perClass.test(s));
        } catch (RuntimeException e) {
          throw new dev.minibatch.runtime.io.SampleProcessor.SampleException((int) r, "file " + file + ", datasets " + datasets + ", row " + r,
              "the filter failed", e);
        }
        if (!accepted) {
          continue;
        }
      }
      keep.add(r);
    }
    return keep.stream().mapToLong(Long::longValue).toArray();
  }

  /** The rows {@code idx} of one entry's arrays. */
  private static List<INDArray> take(List<INDArray> arrays, long[] idx) {
    long count = arrays.get(0).size(0);
    List<INDArray> out = new ArrayList<>();
    for (INDArray a : arrays) {
      if (idx.length == count) {
        out.add(a);
      } else if (idx.length == 0) {
        long[] shape = a.shape().clone();
        shape[0] = 0;
        out.add(Nd4j.create(a.dataType(), shape));
      } else {
        out.add(a.get(NDArrayIndex.indices(idx)).dup('c'));
      }
    }
    return out;
  }
}
