package dev.minibatch.shards;

import dev.minibatch.shards.ShardColumns.Column;
import dev.minibatch.shards.ShardWriter.RowCursor;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/** Hands Parquet one row of a batch: every column's bytes, in column order. */
final class RowWriteSupport extends WriteSupport<RowCursor> {
  private final List<Column> columns;
  private final MessageType schema;
  private RecordConsumer consumer;

  RowWriteSupport(List<Column> columns) {
    this.columns = columns;
    this.schema = ShardColumns.parquetSchema(columns);
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
      // The bytes are copied by the column writer before the next row reuses the buffer.
      c.addBinary(Binary.fromReusedByteArray(row.bytes(i), 0, row.length(i)));
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
