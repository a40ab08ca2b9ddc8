package dev.minibatch.shards;

import dev.minibatch.shards.ShardColumns.Column;
import dev.minibatch.shards.ShardWriter.Row;
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
final class RowWriteSupport extends WriteSupport<Row> {
  private final List<Column> columns;
  private final MessageType schema;
  private final PrimitiveTypeName[] kinds;
  private RecordConsumer consumer;

  RowWriteSupport(List<Column> columns) {
    this.columns = columns;
    this.schema = ShardColumns.parquetSchema(columns);
    this.kinds = columns.stream().map(c -> c.physical().getPrimitiveTypeName()).toArray(PrimitiveTypeName[]::new);
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
  public void write(Row row) {
    RecordConsumer c = consumer;
    c.startMessage();
    for (int i = 0; i < columns.size(); i++) {
      c.startField(columns.get(i).name(), i);
      byte[] b = row.bytes(i);
      switch (kinds[i]) {
        case BOOLEAN -> c.addBoolean(b[0] != 0);
        case INT32 -> c.addInteger(ScalarBytes.getInt(b, columns.get(i).dtype()));
        case INT64 -> c.addLong(ScalarBytes.getLong(b));
        case FLOAT -> c.addFloat(ScalarBytes.getFloat(b));
        case DOUBLE -> c.addDouble(ScalarBytes.getDouble(b));
        // The bytes are copied by the column writer before the next row reuses the buffer.
        default -> c.addBinary(Binary.fromReusedByteArray(b, 0, row.length(i)));
      }
      c.endField(columns.get(i).name(), i);
    }
    c.endMessage();
  }

  /** The Parquet writer builder of these rows. */
  static final class Builder extends ParquetWriter.Builder<Row, Builder> {
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
    protected WriteSupport<Row> getWriteSupport(Configuration conf) {
      return new RowWriteSupport(columns);
    }

    @Override
    protected WriteSupport<Row> getWriteSupport(ParquetConfiguration conf) {
      return new RowWriteSupport(columns);
    }
  }
}
