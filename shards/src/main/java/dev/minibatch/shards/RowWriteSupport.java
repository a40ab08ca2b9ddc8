package dev.minibatch.shards;

import dev.minibatch.shards.ShardColumns.Column;
import dev.minibatch.shards.ShardWriter.RowCursor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Hands Parquet one row of a batch, in column order: a scalar as the number it is (its column's
 * {@link Column#physical()} type), an array as its bytes.
 */
final class RowWriteSupport extends WriteSupport<RowCursor> {
  // The row's bytes are little-endian, as the batch buffers hold them.
  private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle FLOAT = MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle DOUBLE = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

  private final List<Column> columns;
  private final MessageType schema;
  private final PrimitiveTypeName[] kinds;
  private RecordConsumer consumer;

  RowWriteSupport(List<Column> columns) {
    this.columns = columns;
    this.schema = ShardColumns.parquetSchema(columns);
    this.kinds = columns.stream().map(c -> c.physical().getPrimitiveTypeName()).toArray(PrimitiveTypeName[]::new);
  }

  /** A scalar stored as INT32: its little-endian bytes as the int they hold (sign or zero extended). */
  private int integer(byte[] b, int column) {
    return switch (columns.get(column).dtype()) {
      case INT8 -> b[0];
      case UINT8 -> b[0] & 0xFF;
      case INT16 -> (short) SHORT.get(b, 0);
      case UINT16 -> (short) SHORT.get(b, 0) & 0xFFFF;
      default -> (int) INT.get(b, 0);
    };
  }

  // Abstract in WriteSupport though deprecated: ParquetWriter still calls it with a Hadoop configuration.
  @Override
  @Deprecated
  public WriteContext init(Configuration configuration) {
    return new WriteContext(schema, ShardColumns.metadata(columns));
  }

  @Override
  public WriteContext init(ParquetConfiguration configuration) {
    return new WriteContext(schema, ShardColumns.metadata(columns));
  }

  @Override
  public void prepareForWrite(RecordConsumer recordConsumer) {
    this.consumer = recordConsumer;
  }

  @Override
  public void write(RowCursor row) {
    RecordConsumer c = consumer;
    c.startMessage();
    for (int i = 0; i < columns.size(); i++) {
      c.startField(columns.get(i).name(), i);
      byte[] b = row.bytes(i);
      switch (kinds[i]) {
        case BOOLEAN -> c.addBoolean(b[0] != 0);
        case INT32 -> c.addInteger(integer(b, i));
        case INT64 -> c.addLong((long) LONG.get(b, 0));
        case FLOAT -> c.addFloat((float) FLOAT.get(b, 0));
        case DOUBLE -> c.addDouble((double) DOUBLE.get(b, 0));
        // The bytes are copied by the column writer before the next row reuses the buffer.
        default -> c.addBinary(Binary.fromReusedByteArray(b, 0, row.length(i)));
      }
      c.endField(columns.get(i).name(), i);
    }
    c.endMessage();
  }

  /** The Parquet writer builder of these rows. */
  static final class Builder extends ParquetWriter.Builder<RowCursor, Builder> {
    private final List<Column> columns;

    Builder(OutputFile file, List<Column> columns) {
      super(file);
      this.columns = columns;
    }

    @Override
    protected Builder self() {
      return this;
    }

    // Abstract in ParquetWriter.Builder though deprecated.
    @Override
    @Deprecated
    protected WriteSupport<RowCursor> getWriteSupport(Configuration conf) {
      return new RowWriteSupport(columns);
    }

    @Override
    protected WriteSupport<RowCursor> getWriteSupport(ParquetConfiguration conf) {
      return new RowWriteSupport(columns);
    }
  }
}
