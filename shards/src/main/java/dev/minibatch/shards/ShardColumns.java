package dev.minibatch.shards;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.SampleSchema;
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
import org.jspecify.annotations.Nullable;

/**
 * The columns of a shard set: one required column per provided array. A scalar (a sample shape of
 * rank 0) is stored in Parquet's own type ({@link Column#physical()}: INT32, INT64, FLOAT, DOUBLE,
 * BOOLEAN, and INT8, INT16, UINT8, UINT16 as INT32 with their integer annotation), so DuckDB, Spark
 * and pyarrow read numbers. An array is one sample's elements as little-endian bytes, row-major:
 * fixed-size ({@code fixed_len_byte_array}) for a fixed shape, variable ({@code binary}) for one
 * with a {@link Shape#VARIABLE} axis, whose value holds the sample's real steps only (its length is
 * the value's bytes over {@link Column#stepBytes()}). Each column is a {@link SampleSchema.Field}
 * (name, role, dtype, sample shape, layout, bound), the writing provider's; the set's {@link
 * SampleSchema} is in each Parquet file's key-value metadata ({@code minibatch.columns}) and in the
 * index, in that type's one text form.
 *
 * <p>A column whose field has an image {@link SampleSchema.Encoding} ({@link Column#encoded()})
 * holds each sample's encoded image (JPEG, PNG) as a {@code binary} value; its field describes the
 * array the reader decodes it to.
 *
 * <p>Format versions ({@code minibatch.version}): 1 stored scalars as {@code fixed_len_byte_array}
 * too; 2 stores them typed; 3 writes {@code minibatch.columns} as {@link SampleSchema} text (before:
 * one {@code name<TAB>role<TAB>dtype<TAB>dims} line per column); 4 is 3 with an encoded-image
 * column, written only by a set that has one (so a set without stays readable by a reader of 3).
 * Readers take all four: they read the columns from the index, not from a file's metadata.
 */
final class ShardColumns {
  /** The key of the column descriptions in a shard file's key-value metadata. */
  static final String METADATA_KEY = "minibatch.columns";
  /** The format version, in the metadata under {@code minibatch.version}. */
  static final String VERSION_KEY = "minibatch.version";
  static final String VERSION = "3";
  /** The format version of a set with an encoded-image column: version 3 with that column kind. */
  static final String VERSION_IMAGES = "4";
  /** The format versions this reader takes. */
  static final java.util.Set<String> READABLE = java.util.Set.of("1", "2", "3", "4");

  /** One column: a provided array of one sample, as its field of the sample's schema. */
  record Column(SampleSchema.Field field) {
    /** A column of the default layout and no bound (as an index of version 1, which holds neither, reads). */
    static Column of(String name, Role role, Shape shape, DType dtype) {
      return new Column(new SampleSchema.Field(name, role, shape, dtype, DataDesc.defaultLayout(shape.withBatch(1)), 0));
    }

    String name() {
      return field.name();
    }

    Role role() {
      return field.role();
    }

    /** The shape of one sample. */
    Shape shape() {
      return field.sampleShape();
    }

    DType dtype() {
      return field.dtype();
    }

    /**
     * The field as far as the stored bytes go: its name, role, dtype and sample shape, under the
     * default layout and without a bound. A provider reading the set must agree on this much; the
     * layout and the bound are its own (how it names the axes, where it cuts a sample).
     */
    SampleSchema.Field storage() {
      return of(name(), role(), shape(), dtype()).field;
    }

    /**
     * The Parquet type a sample of this column is stored as in format 2: its own primitive type for
     * a scalar of a type Parquet has, else {@code fixed_len_byte_array} (fixed shape; FLOAT16 scalars
     * too) or {@code binary} (variable axis).
     */
    PrimitiveType physical() {
      if (shape().rank() == 0) {
        switch (dtype()) {
          case BOOL:
            return Types.required(PrimitiveTypeName.BOOLEAN).named(name());
          case INT8:
            return Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, true)).named(name());
          case UINT8:
            return Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, false)).named(name());
          case INT16:
            return Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true)).named(name());
          case UINT16:
            return Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, false)).named(name());
          case INT32:
            return Types.required(PrimitiveTypeName.INT32).named(name());
          case INT64:
            return Types.required(PrimitiveTypeName.INT64).named(name());
          case FLOAT32:
            return Types.required(PrimitiveTypeName.FLOAT).named(name());
          case FLOAT64:
            return Types.required(PrimitiveTypeName.DOUBLE).named(name());
          default:
            break;
        }
      }
      if (binary()) {
        return Types.required(PrimitiveTypeName.BINARY).named(name());
      }
      return Types.required(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(rowBytes()).named(name());
    }

    /** Whether the array has a variable axis (a {@code binary} column of the sample's real steps). */
    boolean variable() {
      return !shape().isFixed();
    }

    /**
     * Whether the values are encoded images (a {@code binary} column of JPEG or PNG bytes), decoded
     * into the array the field describes ({@link #rowBytes()} bytes per sample in a batch).
     */
    boolean encoded() {
      return field.encoding().image();
    }

    /** Whether the values are of variable length, stored {@code binary} and decoded value by value. */
    boolean binary() {
      return variable() || encoded();
    }

    /** The bytes a binary value's length is a multiple of: a step's, or 1 for an encoded image. */
    int valueStep() {
      return encoded() ? 1 : stepBytes();
    }

    /** The bytes of one sample's array; for a variable array, of one step of it ({@link #stepBytes()}). */
    int rowBytes() {
      long n = stepElements() * dtype().byteSize();
      if (n <= 0 || n > Integer.MAX_VALUE / 2) {
        throw new IllegalArgumentException("column '" + name() + "': a sample of shape() " + shape() + " and " + dtype()
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
      for (int i = 0; i < shape().rank(); i++) {
        n *= shape().dim(i) == Shape.VARIABLE ? 1 : shape().dim(i);
      }
      return n;
    }

    /** The elements before the variable axis (row-major), the blocks a sample's steps are cut into. */
    int outer() {
      long n = 1;
      for (int i = 0; i < shape().variableAxis(); i++) {
        n *= shape().dim(i);
      }
      return (int) n;
    }

    /** The description a provider reports for batches of {@code batchSize} rows: the field's, layout and bound too. */
    DataDesc toDataDesc(long batchSize) {
      return field.toDataDesc(batchSize);
    }
  }

  private ShardColumns() {}

  /** The columns of a provider's arrays: data, then labels, in order. */
  static List<Column> of(List<DataDesc> data, List<DataDesc> labels) {
    List<Column> out = new ArrayList<>();
    for (List<DataDesc> group : List.of(data, labels)) {
      for (DataDesc d : group) {
        Column c = new Column(SampleSchema.Field.of(d));
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
    m.put(VERSION_KEY, anyEncoded(columns) ? VERSION_IMAGES : VERSION);
    m.put(METADATA_KEY, text(columns));
    return m;
  }

  /** Whether a column holds encoded images. */
  static boolean anyEncoded(List<Column> columns) {
    return columns.stream().anyMatch(Column::encoded);
  }

  /** The columns as a schema. */
  static SampleSchema schema(List<Column> columns) {
    return SampleSchema.of(columns.stream().map(Column::field).toList());
  }

  /** The columns as {@link SampleSchema} text: one line per column. */
  /** The columns' fields, in order: what the runtime's image decoders and the schema take. */
  static List<SampleSchema.Field> fields(List<Column> columns) {
    return columns.stream().map(Column::field).toList();
  }

  static String text(List<Column> columns) {
    return schema(columns).toString();
  }

  /** The columns as far as the stored bytes go ({@link Column#storage()}). */
  static List<SampleSchema.Field> storage(List<Column> columns) {
    return columns.stream().map(Column::storage).toList();
  }

  /**
   * What differs between the arrays a provider reads ({@code reads}) and the columns a shard set
   * holds, as far as the stored bytes go ({@link Column#storage()}), or null when nothing does:
   * the first array that differs, by its position and name, the part (name, role, dtype, sample
   * shape) and both values; or both counts.
   */
  static @Nullable String difference(List<Column> reads, List<Column> holds) {
    List<SampleSchema.Field> ours = storage(reads);
    List<SampleSchema.Field> theirs = storage(holds);
    if (ours.equals(theirs)) {
      return null;
    }
    for (int i = 0; i < Math.min(ours.size(), theirs.size()); i++) {
      SampleSchema.Field a = ours.get(i);
      SampleSchema.Field b = theirs.get(i);
      if (!a.name().equals(b.name())) {
        return "array " + i + " is named '" + a.name() + "' where the shard set's is named '" + b.name() + "'";
      }
      String part = !a.role().equals(b.role()) ? "role " + a.role() + " where the shard set's has " + b.role()
          : !a.dtype().equals(b.dtype()) ? "dtype " + a.dtype() + " where the shard set's has " + b.dtype()
          : !a.sampleShape().equals(b.sampleShape()) ? "sample shape " + a.sampleShape() + " where the shard set's has "
              + b.sampleShape() : null;
      if (part != null) {
        return "array " + i + " ('" + a.name() + "') has " + part;
      }
    }
    return "the arrays " + names(ours) + " where the shard set has " + names(theirs);
  }

  private static List<String> names(List<SampleSchema.Field> fields) {
    return fields.stream().map(SampleSchema.Field::name).toList();
  }
}
