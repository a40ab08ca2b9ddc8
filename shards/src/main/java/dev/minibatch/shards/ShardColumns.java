package dev.minibatch.shards;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.shape.Shape;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * The columns of a shard set: one per provided array, each a required binary column that holds one
 * sample's array as little-endian bytes, row-major: fixed-size ({@code fixed_len_byte_array}) for
 * an array of fixed shape, variable ({@code binary}) for one with a {@link Shape#VARIABLE} axis,
 * whose value holds the sample's real steps only (its length is the value's bytes over {@link
 * Column#stepBytes()}). The shape (-1 for the variable axis), element type and role of every column
 * are in each Parquet file's key-value metadata ({@code minibatch.columns}, one line per column:
 * {@code name role dtype dims}) and in the index, so any Parquet reader sees plain binary columns
 * and minibatch sees typed arrays.
 */
final class ShardColumns {
  /** The key of the column descriptions in a shard file's key-value metadata. */
  static final String METADATA_KEY = "minibatch.columns";
  /** The format version, in the metadata under {@code minibatch.version}. */
  static final String VERSION_KEY = "minibatch.version";
  static final String VERSION = "1";

  /** One column: a provided array of one sample. */
  record Column(String name, Role role, Shape shape, DType dtype) {
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

  /**
   * The Parquet schema: one required binary column per array, in order; fixed-size for a fixed
   * shape.
   */
  static MessageType parquetSchema(List<Column> columns) {
    Types.MessageTypeBuilder b = Types.buildMessage();
    for (Column c : columns) {
      if (c.variable()) {
        b.required(PrimitiveTypeName.BINARY).named(c.name());
      } else {
        b.required(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(c.rowBytes()).named(c.name());
      }
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
