package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.LocalFormat;
import dev.minibatch.runtime.io.Format.Options;
import dev.minibatch.runtime.io.Format.Problems;
import dev.minibatch.runtime.io.Format.Report;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * HDF5 files, read by the runtime's {@link Hdf5Reader} (jhdf); axis 0 of every dataset is the
 * sample axis. {@link Hdf5Options#datasets()} picks datasets (default: all). A {@link
 * java.util.ServiceLoader} service of {@link Format}.
 */
public final class Hdf5Format implements LocalFormat {
  /** The format; also what {@link Hdf5Provider#format()} returns. */
  public Hdf5Format() {}

  private static final byte[] SIGNATURE = {(byte) 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

  @Override
  public int probeOrder() {
    return HDF5_ORDER;
  }

  @Override
  public String name() {
    return "hdf5";
  }

  /** The HDF5 signature at offset 0, 512, 1024 or 2048 (after a user block). */
  @Override
  public boolean probe(Path file, byte[] head) {
    for (int at = 0; at + SIGNATURE.length <= head.length; at = at == 0 ? 512 : at * 2) {
      if (java.util.Arrays.equals(head, at, at + SIGNATURE.length, SIGNATURE, 0, SIGNATURE.length)) {
        return true;
      }
    }
    return false;
  }

  private static List<String> datasets(Path file, Options options) {
    List<String> given = given(options);
    return given.isEmpty() ? Hdf5Reader.datasets(file) : given;
  }

  private static List<String> given(Options options) {
    return options.get(Hdf5Options.class, Hdf5Options.ALL).datasets();
  }

  @Override
  public Report describe(Path file, Options options) {
    List<String> names = datasets(file, options);
    Report r = new Report();
    r.field("format", "hdf5");
    r.field("datasets", Integer.toString(names.size()));
    List<String> rows = new ArrayList<>();
    for (String name : names) {
      INDArray a;
      try {
        a = Hdf5Reader.read(file, name);
      } catch (FileFormatException e) {
        r.field(name, "not readable: " + e.getMessage());
        continue;
      }
      long samples = a.size(0);
      long perSample = a.length() / Math.max(1, samples);
      r.field(name, Report.shape(a.shape()) + " " + dev.minibatch.runtime.spi.DTypes.fromNd4j(a.dataType()) + ", " + samples + " samples, "
          + Report.summary(i -> a.getDouble(i), (int) Math.min(Integer.MAX_VALUE, a.length())));
      if (a.rank() == 1 && !a.dataType().isFPType()) {
        Map<String, Long> counts = Report.counts(a::getDouble, a.length());
        if (counts.size() <= 32 && counts.size() * 2 <= samples) {
          r.histogram(name + " classes", counts);
        }
      }
      INDArray flat = a.ravel();
      for (int s = 0; s < Math.min(options.rows(), samples); s++) {
        long base = s * perSample;
        rows.add(name + " #" + s + ": " + Report.values(i -> flat.getDouble(base + i), (int) perSample, 8));
      }
    }
    r.rows("first rows", rows);
    return r;
  }

  /**
   * Reads every dataset on its own (so one bad dataset does not hide the others), checks that the
   * datasets given with {@code --dataset} have one sample count, and reports non-finite values by
   * sample.
   */
  @Override
  public void validate(Path file, Options options, Problems problems) {
    List<String> names;
    try {
      names = datasets(file, options);
    } catch (FileFormatException e) {
      problems.report(e, e.file());
      return;
    }
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String name : names) {
      if (problems.isFull()) {
        return;
      }
      INDArray a;
      try {
        a = Hdf5Reader.read(file, name);
      } catch (FileFormatException e) {
        problems.report(e, e.file());
        continue;
      }
      counts.put(name, a.size(0));
      if (a.dataType().isFPType()) {
        long perSample = a.length() / Math.max(1, a.size(0));
        INDArray flat = a.ravel();
        for (long i = 0; i < a.length() && !problems.isFull(); i++) {
          double v = flat.getDouble(i);
          if (!Double.isFinite(v)) {
            problems.report(file + ": dataset '" + name + "', sample " + i / perSample, "element " + i % perSample + " is " + v);
          }
        }
      }
    }
    if (!given(options).isEmpty() && counts.values().stream().distinct().count() > 1) {
      problems.report(file.toString(), "the datasets have different sample counts (axis 0): " + counts);
    }
  }

  /** One entry of the datasets given, or of every dataset with the first dataset's sample count. */
  @Override
  public BatchProvider<? extends Batch> provider(Path file, Options options) {
    List<String> names = given(options);
    if (names.isEmpty()) {
      names = new ArrayList<>();
      long count = -1;
      for (String name : Hdf5Reader.datasets(file)) {
        long n;
        try {
          n = Hdf5Reader.read(file, name).size(0);
        } catch (FileFormatException e) {
          continue;
        }
        if (count < 0) {
          count = n;
        }
        if (n == count) {
          names.add(name);
        }
      }
    }
    return Hdf5Provider.builder().add(file, names, file.getFileName().toString()).settings(options.settings()).build();
  }
}
