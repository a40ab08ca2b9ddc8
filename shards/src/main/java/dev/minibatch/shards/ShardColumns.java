package dev.minibatch.shards;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.shape.Shape;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * The columns of a shard set: one required column per provided array. A scalar (a sample shape of
 * rank 0) is stored in Parquet's own type ({@link Column#physical()}: INT32, INT64, FLOAT, DOUBLE,
 * BOOLEAN, and INT8, INT16, UINT8, UINT16 as INT32 with their integer annotation), so DuckDB, Spark
 * and pyarrow read numbers. An array is one sample's elements as little-endian bytes, row-major:
 * fixed-size ({@code fixed_len_byte_array}) for a fixed shape, variable ({@code binary}) for one
 * with a {@link Shape#VARIABLE} axis, whose value holds the sample's real steps only (its length is
 * the value's bytes over {@link Column#stepBytes()}). The shape (-1 for the variable axis), element
 * type and role of every column are in each Parquet file's key-value metadata ({@code
 * minibatch.columns}, one line per column: {@code name role dtype dims}) and in the index.
 *
 * <p>Format versions ({@code minibatch.version}): 1 stored scalars as {@code fixed_len_byte_array}
 * too; 2 stores them typed. Readers take both.
 */
final class ShardColumns {
  /** The key of the column descriptions in a shard file's key-value metadata. */
  static final String METADATA_KEY = "minibatch.columns";
  /** The format version, in the metadata under {@code minibatch.version}. */
  static final String VERSION_KEY = "minibatch.version";
  static final String VERSION = "2";
  /** The format versions this reader takes. */
  static final java.util.Set<String> READABLE = java.util.Set.of("1", "2");

  /** One column: a provided array of one sample. */
  record Column(String name, Role role, Shape shape, DType dtype) {
    /**
     * The Parquet type a sample of this column is stored as in format 2: its own primitive type for
     * a scalar of a type Parquet has, else {@code fixed_len_byte_array} (fixed shape; FLOAT16 scalars
     * too) or {@code binary} (variable axis).
     */
    PrimitiveType physical() {
      if (shape.rank() == 0) {
        switch (dtype) {
          case BOOL:
            return Types.required(PrimitiveTypeName.BOOLEAN).named(name);
          case INT8:
            return Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, true)).named(name);
          case UINT8:
            return Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, false)).named(name);
          case INT16:
            return Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true)).named(name);
          case UINT16:
            return Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, false)).named(name);
          case INT32:
            return Types.required(PrimitiveTypeName.INT32).named(name);
          case INT64:
            return Types.required(PrimitiveTypeName.INT64).named(name);
          case FLOAT32:
            return Types.required(PrimitiveTypeName.FLOAT).named(name);
          case FLOAT64:
            return Types.required(PrimitiveTypeName.DOUBLE).named(name);
          default:
            break;
        }
      }
      if (variable()) {
        return Types.required(PrimitiveTypeName.BINARY).named(name);
      }
      return Types.required(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(rowBytes()).named(name);
    }

    /** Whether the array has a variable axis (a {@code binary} column of the sample's real steps). */
    boolean variable() {
      return !shape.isFixed();
    }

    /** The bytes of one sample's array; for a variable array, of one step of it ({@link #stepBytes()}). */
    int rowBytes() {
      long n = stepElements() * dtype.byteSize();
      if (n <= 0 || n > Integer.MAX_VALUE / 2) {
        throw new IllegalArgumentException("column '" + name + "': a sample of shape " + shape + " and " + dtype
            + " takes " + n + " bytes" + (variable() ? " per step" : "") + "; a shard column holds 1 byte to 1 GiB per"
            + (variable() ? " step" : " sample"));
      }
      return (int) n;
    }

    /** The bytes of one step of a variable array: the product of its fixed dims times the element size. */
    int stepBytes() {
      return rowBytes();
    }

    /** The elements of the array, or of one step of a variable array. */
    private long stepElements() {
      long n = 1;
      for (int i = 0; i < shape.rank(); i++) {
        n *= shape.dim(i) == Shape.VARIABLE ? 1 : shape.dim(i);
      }
      return n;
    }

    /** The elements before the variable axis (row-major), the blocks a sample's steps are cut into. */
    int outer() {
      long n = 1;
      for (int i = 0; i < shape.variableAxis(); i++) {
        n *= shape.dim(i);
      }
      return (int) n;
    }

    /** The description a provider reports for batches of {@code batchSize} rows. */
    DataDesc toDataDesc(long batchSize) {
      return DataDesc.of(name, batchSize, shape, dtype, role);
    }

    /** One line: {@code name role dtype d0,d1,...} (an empty dims field for a scalar). */
    String line() {
      StringBuilder dims = new StringBuilder();
      for (int i = 0; i < shape.rank(); i++) {
        dims.append(i == 0 ? "" : ",").append(shape.dim(i));
      }
      return name + "\t" + role + "\t" + dtype + "\t" + dims;
    }

    /**
     * The column of one {@link #line()}.
     *
     * @throws IllegalArgumentException naming the field that is not as expected
     */
    static Column parse(String line) {
      String[] f = line.split("\t", -1);
      if (f.length != 4 || f[0].isEmpty()) {
        throw new IllegalArgumentException("expected 'name<TAB>role<TAB>dtype<TAB>dims', found '" + line + "'");
      }
      Role role = enumValue(Role.class, f[1], "role");
      DType dtype = enumValue(DType.class, f[2], "dtype");
      String[] d = f[3].isEmpty() ? new String[0] : f[3].split(",", -1);
      long[] dims = new long[d.length];
      for (int i = 0; i < d.length; i++) {
        try {
          dims[i] = Long.parseLong(d[i]);
        } catch (NumberFormatException e) {
          dims[i] = 0;
        }
        if (dims[i] <= 0 && dims[i] != Shape.VARIABLE) {
          throw new IllegalArgumentException("dimension " + i + " of column '" + f[0] + "' must be a positive integer or"
              + " -1 (the variable axis), found '" + d[i] + "'");
        }
      }
      try {
        return new Column(f[0], role, Shape.of(dims), dtype);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("column '" + f[0] + "': " + e.getMessage(), e);
      }
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String text, String field) {
      try {
        return Enum.valueOf(type, text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(field + " '" + text + "' is not one of " + java.util.Arrays.toString(
            type.getEnumConstants()), e);
      }
    }
  }

  private ShardColumns() {}

  /** The columns of a provider's arrays: data, then labels, in order. */
  static List<Column> of(List<DataDesc> data, List<DataDesc> labels) {
    List<Column> out = new ArrayList<>();
    for (List<DataDesc> group : List.of(data, labels)) {
      for (DataDesc d : group) {
        Shape s = d.sampleShape();
        Column c = new Column(d.name(), d.role(), s, d.dtype());
        c.rowBytes();
        out.add(c);
      }
    }
    return out;
  }

  /** The Parquet schema of format 2: each column's {@link Column#physical()} type, in order. */
  static MessageType parquetSchema(List<Column> columns) {
    Types.MessageTypeBuilder b = Types.buildMessage();
    for (Column c : columns) {
      b.addField(c.physical());
    }
    return b.named("sample");
  }

  /** The key-value metadata every shard file carries. */
  static Map<String, String> metadata(List<Column> columns) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(VERSION_KEY, VERSION);
    m.put(METADATA_KEY, text(columns));
    return m;
  }

  /** The columns as lines of text. */
  static String text(List<Column> columns) {
    StringBuilder sb = new StringBuilder();
    for (Column c : columns) {
      sb.append(c.line()).append('\n');
    }
    return sb.toString();
  }
}
