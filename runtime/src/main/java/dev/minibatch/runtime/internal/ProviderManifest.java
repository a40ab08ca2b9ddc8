package dev.minibatch.runtime.internal;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.shape.Shape;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * The schema of a generated provider, as the annotation processor wrote it into the resource
 * {@code META-INF/minibatch/<provider class>.properties}: what {@code provideData()} and {@code
 * provideLabel()} return, readable without loading the provider or ND4J (the CLI's {@code
 * describe} reads it).
 *
 * @param sample the annotated sample type
 * @param provider the generated provider class
 * @param batch the generated batch class
 * @param batchSize the annotation's default batch size; 0 when it is set on the builder
 * @param slots the provided arrays, data first, then labels, each in declaration order
 */
public record ProviderManifest(String sample, String provider, String batch, int batchSize, List<Slot> slots) {
  /** The class-path directory of manifests. */
  public static final String DIRECTORY = "META-INF/minibatch/";

  /** A defensive copy. */
  public ProviderManifest {
    slots = List.copyOf(slots);
  }

  /**
   * One provided array.
   *
   * @param name the name a model binds it by
   * @param role data or label
   * @param sampleShape the shape of one sample (no batch axis)
   * @param dtype the element type
   * @param layout the batch array's layout, batch axis first
   * @param property the sample's member it is read from
   * @param maxLength the bound of the variable axis ({@link Shape#VARIABLE} in {@code sampleShape}),
   *     0 for none
   */
  public record Slot(String name, Role role, Shape sampleShape, DType dtype, String layout, String property,
      long maxLength) {
    /** The description of a batch of {@code batchSize} rows, as the provider reports it. */
    public DataDesc toDataDesc(long batchSize) {
      return DataDesc.builder().name(name).shape(sampleShape.withBatch(batchSize)).dtype(dtype).layout(layout)
          .role(role).maxLength(maxLength).build();
    }
  }

  /** The resource path of {@code providerClass}'s manifest. */
  public static String resourceName(String providerClass) {
    return DIRECTORY + providerClass + ".properties";
  }

  /** The resource path of the entry that leads from a sample's canonical name to its provider's manifest. */
  static String sampleResourceName(String sampleClass) {
    return DIRECTORY + "samples/" + sampleClass + ".properties";
  }

  /**
   * The resources {@link #load} looks for, in order, for {@code className}: the provider's
   * manifest, then the sample's entry that names its provider (for messages that say where a
   * lookup looked).
   */
  public static List<String> resourceNames(String className) {
    String name = className.replace('$', '.');
    return List.of(resourceName(name), sampleResourceName(name));
  }

  /**
   * The manifest of {@code className}: a generated provider ({@code demo.DigitProvider}) or its
   * sample type, by canonical or binary name ({@code demo.Digit}; {@code demo.Outer.Digit} or
   * {@code demo.Outer$Digit} finds {@code demo.Outer_DigitProvider}: the processor records which
   * provider each sample has, so no name is guessed). Empty when {@code loader} has neither.
   *
   * @throws IllegalArgumentException if a manifest is malformed
   * @throws UncheckedIOException if it cannot be read
   */
  public static Optional<ProviderManifest> load(String className, ClassLoader loader) {
    List<String> names = resourceNames(className);
    String manifest = names.get(0);
    Optional<ProviderManifest> direct = read(manifest, loader).map(p -> parse(manifest, p));
    if (direct.isPresent()) {
      return direct;
    }
    String entry = names.get(1);
    Optional<Properties> sample = read(entry, loader);
    if (sample.isEmpty()) {
      return Optional.empty();
    }
    String provider = required(sample.get(), entry, "provider");
    String resource = resourceName(provider);
    return Optional.of(parse(resource, read(resource, loader).orElseThrow(() -> new IllegalArgumentException(
        entry + " names provider " + provider + ", but " + resource + " is not on the class path"))));
  }

  private static Optional<Properties> read(String resource, ClassLoader loader) {
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in == null) {
        return Optional.empty();
      }
      Properties p = new Properties();
      p.load(in);
      return Optional.of(p);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + resource, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(resource + ": not a properties file: " + e.getMessage(), e);
    }
  }

  /**
   * Parses a manifest's text.
   *
   * @param source names the manifest in messages
   * @throws IllegalArgumentException naming {@code source} and the key for a missing or bad value
   * @throws UncheckedIOException if {@code in} cannot be read
   */
  public static ProviderManifest parse(String source, InputStream in) {
    Properties p = new Properties();
    try {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + source, e);
    } catch (IllegalArgumentException e) {
      // Properties' own message ("Malformed \\uxxxx encoding.") names neither the file nor the line.
      throw new IllegalArgumentException(source + ": not a properties file: " + e.getMessage(), e);
    }
    return parse(source, p);
  }

  private static ProviderManifest parse(String source, Properties p) {
    String format = required(p, source, "format");
    if (!format.equals("1")) {
      throw new IllegalArgumentException(source + ": manifest format " + format + " is not supported (this runtime reads 1)");
    }
    int slotCount = number(p, source, "slots");
    List<Slot> slots = new ArrayList<>();
    for (int i = 0; i < slotCount; i++) {
      String prefix = "slot." + i + ".";
      try {
        Role role = constant(Role.class, required(p, source, prefix + "role"), prefix + "role");
        DType dtype = constant(DType.class, required(p, source, prefix + "dtype"), prefix + "dtype");
        Slot slot = new Slot(required(p, source, prefix + "name"), role, Shape.of(dims(p, prefix + "shape")), dtype,
            required(p, source, prefix + "layout"), required(p, source, prefix + "property"),
            longValue(p, prefix + "maxLength"));
        // What provideData() will build: a slot that cannot describe itself is the manifest's error, named here.
        slot.toDataDesc(1);
        slots.add(slot);
      } catch (IllegalArgumentException e) {
        String m = e.getMessage();
        throw new IllegalArgumentException(source + ": slot " + i + ": " + (m != null && m.startsWith(source + ": ")
            ? m.substring(source.length() + 2) : m), e);
      }
    }
    return new ProviderManifest(required(p, source, "sample"), required(p, source, "provider"),
        required(p, source, "batch"), number(p, source, "batchSize"), slots);
  }

  /** The constant of {@code type} named {@code name}, or an error naming the key and the constants. */
  private static <E extends Enum<E>> E constant(Class<E> type, String name, String key) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(name)) {
        return e;
      }
    }
    throw new IllegalArgumentException("'" + key + "' must be one of " + java.util.Arrays.toString(type.getEnumConstants())
        + ", found '" + name + "'");
  }

  /** The comma-separated dims under {@code key}, none when it is absent or empty. */
  private static long[] dims(Properties p, String key) {
    String shape = p.getProperty(key, "");
    if (shape.isEmpty()) {
      return new long[0];
    }
    String[] items = shape.split(",", -1);
    long[] dims = new long[items.length];
    for (int k = 0; k < items.length; k++) {
      try {
        dims[k] = Long.parseLong(items[k]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + key + "' must be comma-separated integers (-1 for the variable axis),"
            + " found '" + shape + "'", e);
      }
    }
    return dims;
  }

  /** The integer under {@code key}, 0 when it is absent. */
  private static long longValue(Properties p, String key) {
    String v = p.getProperty(key, "0");
    try {
      long n = Long.parseLong(v);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("'" + key + "' must be an integer >= 0, found '" + v + "'");
  }

  /** The data slots as {@code provideData()} describes them for {@code batchSize} rows. */
  public List<DataDesc> provideData(long batchSize) {
    return slots.stream().filter(s -> s.role() == Role.DATA).map(s -> s.toDataDesc(batchSize)).toList();
  }

  /** The label slots as {@code provideLabel()} describes them for {@code batchSize} rows. */
  public List<DataDesc> provideLabel(long batchSize) {
    return slots.stream().filter(s -> s.role() == Role.LABEL).map(s -> s.toDataDesc(batchSize)).toList();
  }

  private static String required(Properties p, String source, String key) {
    String v = p.getProperty(key);
    if (v == null) {
      throw new IllegalArgumentException(source + ": no '" + key + "'");
    }
    return v;
  }

  private static int number(Properties p, String source, String key) {
    String v = required(p, source, key);
    try {
      int n = Integer.parseInt(v);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(source + ": '" + key + "' is not a number: " + v, e);
    }
    throw new IllegalArgumentException(source + ": '" + key + "' must be >= 0, found " + v);
  }
}
