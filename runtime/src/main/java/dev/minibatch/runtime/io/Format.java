package dev.minibatch.runtime.io;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.check.Check;
import dev.minibatch.runtime.check.IoFailure;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntToDoubleFunction;
import java.util.function.LongToDoubleFunction;
import java.util.zip.GZIPInputStream;
import org.jspecify.annotations.Nullable;

/**
 * A data format: how to recognise a location that holds it, describe it, check every record and
 * read it as batches. A format opens a {@link Location}: a local path, or a URI such as {@code
 * hdfs://} or {@code s3a://} for a format that reads through a file system library; the {@link
 * Path} methods are conveniences for local files. Each format is written once, beside its provider,
 * and the command line ({@code minibatch inspect}, {@code validate}, {@code bench}) only presents
 * what its format returns.
 *
 * <p>Every format is a {@link java.util.ServiceLoader} service ({@code
 * META-INF/services/dev.minibatch.runtime.io.Format}, a public class with a public no-argument
 * constructor), the built-ins included: {@link dev.minibatch.runtime.io.mnist.MnistProvider#format()}
 * (idx), {@link dev.minibatch.runtime.io.hdf5.Hdf5Provider#format()}, {@link
 * dev.minibatch.runtime.io.image.ImageRecordProvider#format()} (RecordIO image records), {@link
 * dev.minibatch.runtime.io.image.ImageRecordProvider#folderFormat()} (a folder of class folders) and
 * {@link dev.minibatch.runtime.io.csv.CsvProvider#format()}; {@code minibatch-shards} adds the shard
 * set. Detection tries them in ascending {@link #probeOrder()}.
 *
 * <p>Options common to every format ({@link Options#rows()}, the providers' {@link Options#settings()}) are fields of
 * {@link Options}; a format's own options are a value of its own type ({@link OwnOptions}) that the
 * caller adds with {@link Options.Builder#with} and the format reads with {@link Options#get}.
 *
 * <p>Implementations report content errors as {@link FileFormatException}s naming the file and the
 * line, record or dataset, and never print.
 */
public interface Format {
  /** The probe order of idx. */
  int IDX_ORDER = 100;
  /** The probe order of HDF5. */
  int HDF5_ORDER = 200;
  /** The probe order of RecordIO. */
  int RECORDIO_ORDER = 300;
  /** The probe order of the shard set ({@code minibatch-shards}). */
  int SHARDS_ORDER = 400;
  /** The probe order of a folder of class folders of images. */
  int FOLDER_ORDER = 500;
  /** The probe order of a format that does not choose one: after the built-ins but CSV. */
  int SERVICE_ORDER = 1000;
  /** The probe order of CSV: last, as it recognises any text. */
  int CSV_ORDER = Integer.MAX_VALUE;

  /** The name {@code --format} selects, e.g. {@code "csv"}. */
  String name();

  /**
   * Where detection tries this format, lower first (formats of equal order by name): idx {@value
   * #IDX_ORDER}, HDF5 {@value #HDF5_ORDER}, RecordIO {@value #RECORDIO_ORDER}, shard set {@value
   * #SHARDS_ORDER}, image folder {@value #FOLDER_ORDER}, other formats {@value #SERVICE_ORDER} unless
   * they say otherwise, CSV last. A format whose probe is strict (a magic number) goes early; one
   * that accepts much goes late.
   */
  default int probeOrder() {
    return SERVICE_ORDER;
  }

  /**
   * True if {@code location} holds this format. {@code head} is the first bytes of a local file,
   * inflated when it is gzip ({@link #head(Location)}); empty for a directory or a location that is
   * not local, which the format looks at itself if it reads such locations.
   *
   * @throws UncheckedIOException if the location cannot be reached
   */
  boolean probe(Location location, byte[] head);

  /**
   * Reads {@code location} and describes it: its format details, shapes, element types, counts, a
   * class histogram where there are classes, and the first {@link Options#rows()} records.
   *
   * @throws FileFormatException if the location cannot be read as this format
   * @throws IllegalArgumentException if this format cannot open such a location
   */
  Report describe(Location location, Options options);

  /**
   * Walks every record of {@code location}, reporting each problem with its location, until the end
   * or until {@code problems} is full.
   *
   * @throws IllegalArgumentException if this format cannot open such a location
   */
  void validate(Location location, Options options, Problems problems);

  /**
   * A provider over {@code location} with the options' batch settings.
   *
   * @throws FileFormatException if the location cannot be read as this format
   * @throws IllegalArgumentException if the options do not say enough to build one, or this format
   *     cannot open such a location
   */
  BatchProvider<? extends Batch> provider(Location location, Options options);

  /**
   * What one batch of {@link #provider} holds: the data arrays, then the labels, each with the batch
   * axis first.
   */
  default List<DataDesc> schema(Location location, Options options) {
    try (BatchProvider<? extends Batch> p = provider(location, options)) {
      List<DataDesc> all = new ArrayList<>(p.provideData());
      all.addAll(p.provideLabel());
      return List.copyOf(all);
    }
  }

  /** {@link #probe(Location, byte[])} of the local file {@code file}. */
  default boolean probe(Path file, byte[] head) {
    return probe(Location.of(file), head);
  }

  /** {@link #describe(Location, Options)} of the local file {@code file}. */
  default Report describe(Path file, Options options) {
    return describe(Location.of(file), options);
  }

  /** {@link #validate(Location, Options, Problems)} of the local file {@code file}. */
  default void validate(Path file, Options options, Problems problems) {
    validate(Location.of(file), options, problems);
  }

  /** {@link #provider(Location, Options)} over the local file {@code file}. */
  default BatchProvider<? extends Batch> provider(Path file, Options options) {
    return provider(Location.of(file), options);
  }

  /** {@link #schema(Location, Options)} of the local file {@code file}. */
  default List<DataDesc> schema(Path file, Options options) {
    return schema(Location.of(file), options);
  }

  /**
   * What {@link #probe} looks at: {@link #head(Path)} of a local location, nothing (an empty array)
   * for another.
   *
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  static byte[] head(Location location) {
    return location.isLocal() ? head(location.path()) : new byte[0];
  }

  /**
   * The first 4096 bytes of {@code file}, inflated when it is gzip (none for a directory): what
   * {@link #probe} looks at.
   *
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  static byte[] head(Path file) {
    return head(file, 4096);
  }

  /**
   * The first {@code n} bytes of {@code file} (fewer if it is shorter), inflated when it is gzip;
   * none for a directory. For a format that needs more than {@link #head(Path)} to detect its
   * settings, without reading the whole file.
   *
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  static byte[] head(Path file, int n) {
    if (Files.isDirectory(file)) {
      return new byte[0];
    }
    try (InputStream raw = Files.newInputStream(file)) {
      byte[] head = raw.readNBytes(n);
      if (head.length < 2 || (head[0] & 0xff) != 0x1f || (head[1] & 0xff) != 0x8b) {
        return head;
      }
    } catch (IOException e) {
      throw IoFailure.of("read", file, e);
    }
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return in.readNBytes(n);
    } catch (IOException e) {
      throw IoFailure.of("decompress", file, e);
    }
  }

  /**
   * The options of one format beyond the common ones of {@link Options}: implemented by a value
   * type the format defines (a record, say {@link dev.minibatch.runtime.io.csv.CsvFileOptions}),
   * added with {@link Options.Builder#with} and read by the format with {@link Options#get}. A
   * format given none of its own options detects them or uses its defaults.
   */
  interface OwnOptions {}

  /**
   * What a format reads: the options every format shares (rows to describe, the providers' {@link
   * Settings}) and each format's own options ({@link OwnOptions}), at most one value of each type. Built
   * with {@link #builder()}; {@link #defaults()} has none of a format's own, so formats detect
   * them.
   */
  final class Options {
    /** Batches of 128: what a format's provider reads unless told otherwise. */
    private static final Settings DEFAULT_SETTINGS = Settings.builder().batchSize(128).build();

    private final Map<Class<?>, OwnOptions> own;
    private final int rows;
    private final Settings settings;

    private Options(Builder b) {
      this.own = Map.copyOf(b.own);
      this.rows = b.rows;
      this.settings = b.settings;
    }

    /** A builder with no format's own options, 3 rows described, batches of 128 in order, no seed. */
    public static Builder builder() {
      return new Builder();
    }

    /** No format's own options, 3 rows described, batches of 128 in order. */
    public static Options defaults() {
      return builder().build();
    }

    /** The format options of type {@code type} that were added, or {@code fallback}. */
    public <T extends OwnOptions> T get(Class<T> type, T fallback) {
      OwnOptions o = own.get(type);
      return o == null ? fallback : type.cast(o);
    }

    /** How many first records {@link Format#describe} shows. */
    public int rows() {
      return rows;
    }

    /**
     * The settings of the providers {@link Format#provider} builds: every one is handed to the
     * format's provider builder ({@link ProviderBuilder#settings(Settings)}), so none is dropped.
     * Batches of 128 unless the value sets a batch size.
     */
    public Settings settings() {
      return settings;
    }

    /** The batch size of {@link #settings()}, which is always set. */
    public int batchSize() {
      return settings.batchSize().orElseThrow();
    }

    /** Builds {@link Options}; every setting is optional. */
    public static final class Builder {
      private final Map<Class<?>, OwnOptions> own = new LinkedHashMap<>();
      private int rows = 3;
      private Settings settings = DEFAULT_SETTINGS;

      private Builder() {}

      /**
       * Adds one format's own options, replacing any earlier value of the same class. Options of
       * several formats may be added: each format reads its own type only.
       */
      public Builder with(OwnOptions options) {
        own.put(options.getClass(), options);
        return this;
      }

      /** See {@link Options#rows()}; default 3. */
      public Builder rows(int rows) {
        this.rows = Check.atLeast("rows", rows, 0);
        return this;
      }

      /**
       * The providers' settings ({@link Options#settings()}); a value without a batch size reads
       * batches of 128. Replaces an earlier value.
       */
      public Builder settings(Settings settings) {
        this.settings = DEFAULT_SETTINGS.toBuilder().apply(settings).build();
        return this;
      }

      /** The options. */
      public Options build() {
        return new Options(this);
      }
    }
  }


  /**
   * What {@link Format#describe} found: {@code key: value} fields, class histograms and titled
   * rows, in the order added. The static methods format values the same way for every format.
   */
  final class Report {
    private final List<Object> items = new ArrayList<>();

    private record Field(String key, String value) {}

    private record Histogram(String title, Map<String, Long> counts) {}

    private record Rows(String title, List<String> rows) {}

    /** Adds {@code key: value}. */
    public Report field(String key, String value) {
      items.add(new Field(key, value));
      return this;
    }

    /** Adds a histogram: each class with its count, in the map's order. */
    public Report histogram(String title, Map<String, Long> counts) {
      items.add(new Histogram(title, new LinkedHashMap<>(counts)));
      return this;
    }

    /** Adds a titled list of rows. */
    public Report rows(String title, List<String> rows) {
      items.add(new Rows(title, List.copyOf(rows)));
      return this;
    }

    /** The value of field {@code key}, or null. */
    public @Nullable String field(String key) {
      for (Object o : items) {
        if (o instanceof Field f && f.key().equals(key)) {
          return f.value();
        }
      }
      return null;
    }

    /** Prints the report: aligned fields, histograms with shares and bars, indented rows. */
    public void print(PrintWriter out) {
      int width = 0;
      for (Object o : items) {
        if (o instanceof Field f) {
          width = Math.max(width, f.key().length());
        }
      }
      for (Object o : items) {
        if (o instanceof Field f) {
          out.printf(Locale.ROOT, "%-" + (width + 1) + "s %s%n", f.key() + ":", f.value());
        } else if (o instanceof Histogram h) {
          printHistogram(h, out);
        } else if (o instanceof Rows r) {
          out.println(r.title() + ":");
          for (String row : r.rows()) {
            out.println("  " + row);
          }
        }
      }
      out.flush();
    }

    private static void printHistogram(Histogram h, PrintWriter out) {
      out.println(h.title() + ":");
      long total = h.counts().values().stream().mapToLong(Long::longValue).sum();
      long max = h.counts().values().stream().mapToLong(Long::longValue).max().orElse(1);
      int nameWidth = h.counts().keySet().stream().mapToInt(String::length).max().orElse(1);
      int countWidth = Long.toString(max).length();
      for (Map.Entry<String, Long> e : h.counts().entrySet()) {
        int bar = (int) Math.round(40.0 * e.getValue() / Math.max(1, max));
        out.printf(Locale.ROOT, "  %-" + nameWidth + "s %" + countWidth + "d %5.1f%%  %s%n", e.getKey(), e.getValue(),
            100.0 * e.getValue() / Math.max(1, total), "#".repeat(bar));
      }
    }

    /**
     * {@code v} compactly: integers without a fraction, float32 values as Java prints the float
     * ({@code 5.1}, not {@code 5.099999904632568}), others to 6 significant digits.
     */
    public static String number(double v) {
      if (v == Math.rint(v) && Math.abs(v) < 1e15) {
        return Long.toString((long) v);
      }
      if (!Double.isFinite(v)) {
        return Double.toString(v);
      }
      if ((double) (float) v == v) {
        return Float.toString((float) v);
      }
      return significant(v, 6);
    }

    private static String significant(double v, int digits) {
      if (!Double.isFinite(v)) {
        return Double.toString(v);
      }
      return new BigDecimal(v).round(new MathContext(digits)).stripTrailingZeros().toPlainString();
    }

    /**
     * How often each of {@code count} values occurs, in ascending order of value, keyed as {@link
     * #number} prints them: a class histogram of label values.
     */
    public static Map<String, Long> counts(LongToDoubleFunction value, long count) {
      TreeMap<Double, Long> byValue = new TreeMap<>();
      for (long i = 0; i < count; i++) {
        byValue.merge(value.applyAsDouble(i), 1L, Long::sum);
      }
      Map<String, Long> out = new LinkedHashMap<>();
      byValue.forEach((k, v) -> out.put(number(k), v));
      return out;
    }

    /** {@code (d0, d1, ...)}; {@code (d0,)} for one axis, {@code ()} for a scalar. */
    public static String shape(long... dims) {
      StringBuilder sb = new StringBuilder("(");
      for (int i = 0; i < dims.length; i++) {
        sb.append(i == 0 ? "" : ", ").append(dims[i]);
      }
      return sb.append(dims.length == 1 ? ",)" : ")").toString();
    }

    /** Up to {@code n} leading values and the count, e.g. {@code [0, 1, 2, ... 784 values]}. */
    public static String values(IntToDoubleFunction value, int count, int n) {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < Math.min(n, count); i++) {
        sb.append(i == 0 ? "" : ", ").append(number(value.applyAsDouble(i)));
      }
      if (count > n) {
        sb.append(", ... ").append(count).append(" values");
      }
      return sb.append(']').toString();
    }

    /** {@code min, max, mean} of {@code count} values. */
    public static String summary(IntToDoubleFunction value, int count) {
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      double sum = 0;
      for (int i = 0; i < count; i++) {
        double v = value.applyAsDouble(i);
        min = Math.min(min, v);
        max = Math.max(max, v);
        sum += v;
      }
      return count == 0 ? "no values" : "min " + number(min) + ", max " + number(max) + ", mean "
          + significant(sum / count, 4);
    }
  }

  /**
   * Where {@link Format#validate} reports: at most a given number of problems, each with its
   * location, in the order found.
   */
  final class Problems {
    /**
     * One problem.
     *
     * @param location where: the file, and the line, record, dataset or field
     * @param message what was expected and what was found
     */
    public record Problem(String location, String message) {
      @Override
      public String toString() {
        return location + ": " + message;
      }
    }

    private final int limit;
    private final List<Problem> found = new ArrayList<>();

    /** A list that holds at most {@code limit} problems. */
    public Problems(int limit) {
      this.limit = Check.atLeast("the problem limit", limit, 1);
    }

    /** Records a problem, unless the list is full. */
    public void report(String location, String message) {
      if (!isFull()) {
        found.add(new Problem(location, message));
      }
    }

    /**
     * Records an error whose message starts with its location ({@code file:line: ...}, as {@link
     * FileFormatException}s do), splitting the two.
     */
    public void report(RuntimeException e, String location) {
      String m = String.valueOf(e.getMessage());
      report(location, m.startsWith(location + ": ") ? m.substring(location.length() + 2) : m);
    }

    /** True when no more problems are recorded: a validator may stop walking. */
    public boolean isFull() {
      return found.size() >= limit;
    }

    /** The problems, in the order found. */
    public List<Problem> list() {
      return List.copyOf(found);
    }
  }
}
