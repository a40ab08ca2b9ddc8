package dev.minibatch.spark.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.jspecify.annotations.Nullable;

/**
 * Typed reads out of Spark rows for generated {@code <Sample>SparkRows} code, and the schema check.
 * Every failure names the row (its global index when known) and the column. Accepts what Spark
 * hands out for an array column (a Scala {@code Seq}), a {@code java.util.List}, and a Java
 * primitive array (rows built by {@code toRow}).
 */
public final class RowValues {
  /** The metadata key holding a column's declared per-sample shape. */
  public static final String SHAPE_KEY = "minibatch.shape";
  /** The metadata key holding a column's role: {@code "data"} or {@code "label"}. */
  public static final String ROLE_KEY = "minibatch.role";
  /**
   * The metadata key of an encoded-image column: the member's encoding ({@code "IMAGE_RGB"}, ...), a
   * {@code SampleSchema.Encoding} name; the column holds the encoded bytes, of any length, and
   * {@link #SHAPE_KEY} the shape they decode to. Absent for a column of raw elements.
   */
  public static final String ENCODING_KEY = "minibatch.encoding";

  private RowValues() {}

  /** Field metadata recording the member's role and declared shape {@code dims} (empty for a scalar). */
  public static Metadata meta(boolean label, long... dims) {
    return new MetadataBuilder().putString(ROLE_KEY, label ? "label" : "data").putLongArray(SHAPE_KEY, dims).build();
  }

  /**
   * Field metadata of an encoded-image member: its role, the shape {@code dims} its bytes decode to,
   * and its {@code encoding} (a {@code SampleSchema.Encoding} name).
   */
  public static Metadata encodedMeta(boolean label, String encoding, long... dims) {
    return new MetadataBuilder().withMetadata(meta(label, dims)).putString(ENCODING_KEY, encoding).build();
  }

  /** The encoding of {@code f}'s encoded image ({@code "IMAGE_RGB"}, ...), or null for a column of raw elements. */
  public static @Nullable String encoding(StructField f) {
    return f.metadata().contains(ENCODING_KEY) ? f.metadata().getString(ENCODING_KEY) : null;
  }

  /** The number of columns of {@code schema} whose metadata gives them the role {@code role}. */
  public static int count(StructType schema, String role) {
    int n = 0;
    for (StructField f : schema.fields()) {
      if (f.metadata().contains(ROLE_KEY) && f.metadata().getString(ROLE_KEY).equals(role)) {
        n++;
      }
    }
    return n;
  }

  /** The column's position: by name when the row has a schema, else {@code position}. */
  public static int at(Row row, String column, int position, long index) {
    StructType schema = row.schema();
    if (schema == null) {
      if (position >= row.length()) {
        throw new IllegalArgumentException(where(index) + ": the row has " + row.length()
            + " values and no schema; column '" + column + "' is expected at position " + position);
      }
      return position;
    }
    int i = Arrays.asList(schema.fieldNames()).indexOf(column);
    if (i < 0) {
      throw new IllegalArgumentException(where(index) + ": no column '" + column + "'; the row has columns "
          + Arrays.toString(schema.fieldNames()));
    }
    return i;
  }

  /**
   * The binary column {@code column} (a {@code byte[]} array) of {@code length} bytes, a new array
   * (-1: any length, as an encoded image's bytes).
   */
  public static byte[] bytes(Row row, int at, String column, int length, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof byte[] a) {
      checkLength(column, index, a.length, length);
      return a.clone();
    }
    throw mistyped(column, index, "binary", v);
  }

  /** The {@code boolean} in column {@code column} at {@code at}. */
  public static boolean bool(Row row, int at, String column, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof Boolean x) {
      return x;
    }
    throw mistyped(column, index, "boolean", v);
  }

  /** The {@code short} in column {@code column} at {@code at}. */
  public static short int16(Row row, int at, String column, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof Short x) {
      return x;
    }
    throw mistyped(column, index, "short", v);
  }

  /** The {@code int} in column {@code column} at {@code at}. */
  public static int int32(Row row, int at, String column, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof Integer x) {
      return x;
    }
    throw mistyped(column, index, "int", v);
  }

  /** The {@code long} in column {@code column} at {@code at}. */
  public static long int64(Row row, int at, String column, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof Long x) {
      return x;
    }
    throw mistyped(column, index, "long", v);
  }

  /** The {@code float} in column {@code column} at {@code at}. */
  public static float float32(Row row, int at, String column, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof Float x) {
      return x;
    }
    throw mistyped(column, index, "float", v);
  }

  /** The {@code double} in column {@code column} at {@code at}. */
  public static double float64(Row row, int at, String column, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof Double x) {
      return x;
    }
    throw mistyped(column, index, "double", v);
  }

  /** The {@code byte} in column {@code column} at {@code at}. */
  public static byte int8(Row row, int at, String column, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof Byte x) {
      return x;
    }
    throw mistyped(column, index, "byte", v);
  }

  /** The {@code length} {@code boolean}s of the array column {@code column} at {@code at}, a new array (-1: any length). */
  public static boolean[] booleans(Row row, int at, String column, int length, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof boolean[] a) {
      checkLength(column, index, a.length, length);
      return a.clone();
    }
    List<?> list = list(v, column, index, "boolean");
    checkLength(column, index, list.size(), length);
    length = list.size();
    boolean[] out = new boolean[length];
    for (int i = 0; i < length; i++) {
      Object e = list.get(i);
      if (!(e instanceof Boolean x)) {
        throw element(column, index, i, "boolean", e);
      }
      out[i] = x;
    }
    return out;
  }

  /** The {@code length} {@code short}s of the array column {@code column} at {@code at}, a new array (-1: any length). */
  public static short[] shorts(Row row, int at, String column, int length, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof short[] a) {
      checkLength(column, index, a.length, length);
      return a.clone();
    }
    List<?> list = list(v, column, index, "short");
    checkLength(column, index, list.size(), length);
    length = list.size();
    short[] out = new short[length];
    for (int i = 0; i < length; i++) {
      Object e = list.get(i);
      if (!(e instanceof Short x)) {
        throw element(column, index, i, "short", e);
      }
      out[i] = x;
    }
    return out;
  }

  /** The {@code length} {@code int}s of the array column {@code column} at {@code at}, a new array (-1: any length). */
  public static int[] ints(Row row, int at, String column, int length, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof int[] a) {
      checkLength(column, index, a.length, length);
      return a.clone();
    }
    List<?> list = list(v, column, index, "int");
    checkLength(column, index, list.size(), length);
    length = list.size();
    int[] out = new int[length];
    for (int i = 0; i < length; i++) {
      Object e = list.get(i);
      if (!(e instanceof Integer x)) {
        throw element(column, index, i, "int", e);
      }
      out[i] = x;
    }
    return out;
  }

  /** The {@code length} {@code long}s of the array column {@code column} at {@code at}, a new array (-1: any length). */
  public static long[] longs(Row row, int at, String column, int length, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof long[] a) {
      checkLength(column, index, a.length, length);
      return a.clone();
    }
    List<?> list = list(v, column, index, "long");
    checkLength(column, index, list.size(), length);
    length = list.size();
    long[] out = new long[length];
    for (int i = 0; i < length; i++) {
      Object e = list.get(i);
      if (!(e instanceof Long x)) {
        throw element(column, index, i, "long", e);
      }
      out[i] = x;
    }
    return out;
  }

  /** The {@code length} {@code float}s of the array column {@code column} at {@code at}, a new array (-1: any length). */
  public static float[] floats(Row row, int at, String column, int length, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof float[] a) {
      checkLength(column, index, a.length, length);
      return a.clone();
    }
    List<?> list = list(v, column, index, "float");
    checkLength(column, index, list.size(), length);
    length = list.size();
    float[] out = new float[length];
    for (int i = 0; i < length; i++) {
      Object e = list.get(i);
      if (!(e instanceof Float x)) {
        throw element(column, index, i, "float", e);
      }
      out[i] = x;
    }
    return out;
  }

  /** The {@code length} {@code double}s of the array column {@code column} at {@code at}, a new array (-1: any length). */
  public static double[] doubles(Row row, int at, String column, int length, long index) {
    Object v = value(row, at, column, index);
    if (v instanceof double[] a) {
      checkLength(column, index, a.length, length);
      return a.clone();
    }
    List<?> list = list(v, column, index, "double");
    checkLength(column, index, list.size(), length);
    length = list.size();
    double[] out = new double[length];
    for (int i = 0; i < length; i++) {
      Object e = list.get(i);
      if (!(e instanceof Double x)) {
        throw element(column, index, i, "double", e);
      }
      out[i] = x;
    }
    return out;
  }

  /**
   * Checks that {@code found} has every column of {@code expected} with a matching type (array
   * element nullability and field nullability aside: nulls fail per row).
   *
   * @throws IllegalArgumentException naming the column, the expected and the found type
   */
  public static void check(StructType expected, StructType found, String sample) {
    List<String> names = Arrays.asList(found.fieldNames());
    List<String> problems = new ArrayList<>();
    for (StructField f : expected.fields()) {
      int i = names.indexOf(f.name());
      if (i < 0) {
        problems.add("column '" + f.name() + "' is missing: " + sample + "." + f.name() + " needs " + describe(f)
            + "; the DataFrame has columns " + names);
        continue;
      }
      DataType actual = found.fields()[i].dataType();
      if (!sameType(f.dataType(), actual)) {
        problems.add("column '" + f.name() + "' has type " + actual.simpleString() + ", expected " + describe(f)
            + " for " + sample + "." + f.name());
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("the DataFrame does not fit " + sample + ": " + String.join("; ", problems));
    }
  }

  /** The type and, for arrays, the element count and shape a field expects. */
  public static String describe(StructField f) {
    String type = f.dataType().simpleString();
    String encoding = encoding(f);
    if (encoding != null) {
      // The bytes of an encoded image: any length; the shape is the decoded image's.
      return type + " (the encoded bytes of an " + encoding + " image, any length, decoded to shape "
          + Arrays.toString(f.metadata().getLongArray(SHAPE_KEY)) + ")";
    }
    if (f.metadata().contains(SHAPE_KEY)) {
      long[] dims = f.metadata().getLongArray(SHAPE_KEY);
      if (dims.length > 0 && Arrays.stream(dims).anyMatch(d -> d < 0)) {
        return type + " (any length, shape " + Arrays.toString(dims) + ")";
      }
      if (dims.length > 0) {
        long n = 1;
        for (long d : dims) {
          n *= d;
        }
        return type + " (" + n + " elements, shape " + Arrays.toString(dims) + ")";
      }
    }
    return type;
  }

  private static boolean sameType(DataType expected, DataType actual) {
    if (expected instanceof ArrayType e && actual instanceof ArrayType a) {
      return sameType(e.elementType(), a.elementType());
    }
    return expected.sameType(actual);
  }

  private static Object value(Row row, int at, String column, long index) {
    if (row.isNullAt(at)) {
      throw new IllegalArgumentException(where(index) + ": column '" + column + "' is null");
    }
    return row.get(at);
  }

  private static List<?> list(Object v, String column, long index, String element) {
    if (v instanceof List<?> l) {
      return l;
    }
    if (v instanceof scala.collection.Seq<?> s) {
      return scala.collection.JavaConverters.seqAsJavaList(s);
    }
    throw mistyped(column, index, "array<" + element + ">", v);
  }

  /** Checks an array column's length; {@code expected} -1 takes any length (a variable axis). */
  private static void checkLength(String column, long index, int found, int expected) {
    if (expected >= 0 && found != expected) {
      throw new IllegalArgumentException(where(index) + ": column '" + column + "' has " + found
          + " elements, expected " + expected);
    }
  }

  private static IllegalArgumentException mistyped(String column, long index, String expected, @Nullable Object v) {
    return new IllegalArgumentException(where(index) + ": column '" + column + "' holds a "
        + (v == null ? "null" : v.getClass().getName()) + ", expected " + expected);
  }

  private static IllegalArgumentException element(String column, long index, int i, String expected, @Nullable Object e) {
    return new IllegalArgumentException(where(index) + ": column '" + column + "' element " + i + " is "
        + (e == null ? "null" : "a " + e.getClass().getName()) + ", expected " + expected);
  }

  /** "row 17", or "a row" when the index is unknown. */
  public static String where(long index) {
    return index < 0 ? "a row" : "row " + index;
  }
}
