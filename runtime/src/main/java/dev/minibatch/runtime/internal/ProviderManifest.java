package dev.minibatch.runtime.internal;

import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.SampleSchema;
import dev.minibatch.runtime.check.IoFailure;
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
  /**
   * The manifest format the processor writes and this runtime reads: {@code slot.N} holds slot N's
   * field in {@link SampleSchema.Field}'s text, {@code slot.N.property} its member.
   */
  public static final String FORMAT = "2";

  /** A defensive copy. */
  public ProviderManifest {
    slots = List.copyOf(slots);
  }

  /**
   * One provided array: its field of the sample's schema, and the sample's member it is read from.
   *
   * @param field the name, role, sample shape, dtype, layout and bound
   * @param property the sample's member
   */
  public record Slot(SampleSchema.Field field, String property) {}

  /** The sample's schema: every slot's field, in order. */
  public SampleSchema schema() {
    return SampleSchema.of(slots.stream().map(Slot::field).toList());
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
      throw IoFailure.of("read", resource, e);
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
      throw IoFailure.of("read", source, e);
    } catch (IllegalArgumentException e) {
      // Properties' own message ("Malformed \\uxxxx encoding.") names neither the file nor the line.
      throw new IllegalArgumentException(source + ": not a properties file: " + e.getMessage(), e);
    }
    return parse(source, p);
  }

  private static ProviderManifest parse(String source, Properties p) {
    String format = required(p, source, "format");
    if (!format.equals(FORMAT)) {
      throw new IllegalArgumentException(source + ": manifest format " + format + " is not supported (this runtime reads "
          + FORMAT + "); compile the provider with this version's processor");
    }
    int slotCount = number(p, source, "slots");
    List<Slot> slots = new ArrayList<>();
    for (int i = 0; i < slotCount; i++) {
      String key = "slot." + i;
      String text = required(p, source, key);
      SampleSchema.Field field;
      try {
        field = SampleSchema.Field.parse(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(source + ": '" + key + "' " + e.getMessage(), e);
      }
      slots.add(new Slot(field, required(p, source, key + ".property")));
    }
    ProviderManifest m = new ProviderManifest(required(p, source, "sample"), required(p, source, "provider"),
        required(p, source, "batch"), number(p, source, "batchSize"), slots);
    try {
      m.schema();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + ": slots " + e.getMessage().substring("fields ".length()), e);
    }
    return m;
  }

  /** The data slots as {@code provideData()} describes them for {@code batchSize} rows. */
  public List<DataDesc> provideData(long batchSize) {
    return slots.stream().map(Slot::field).filter(f -> f.role() == Role.DATA).map(f -> f.toDataDesc(batchSize)).toList();
  }

  /** The label slots as {@code provideLabel()} describes them for {@code batchSize} rows. */
  public List<DataDesc> provideLabel(long batchSize) {
    return slots.stream().map(Slot::field).filter(f -> f.role() == Role.LABEL).map(f -> f.toDataDesc(batchSize)).toList();
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
