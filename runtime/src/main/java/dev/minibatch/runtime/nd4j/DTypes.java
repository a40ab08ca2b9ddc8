package dev.minibatch.runtime.nd4j;

import dev.minibatch.DType;
import org.nd4j.linalg.api.buffer.DataType;

/** Maps minibatch's {@link DType} to ND4J's {@link DataType} and back. */
public final class DTypes {
  private DTypes() {}

  /**
   * The ND4J type of {@code dtype}.
   *
   * @throws IllegalArgumentException for {@link DType#INFER}
   */
  public static DataType toNd4j(DType dtype) {
    switch (dtype) {
      case BOOL:
        return DataType.BOOL;
      case INT8:
        return DataType.BYTE;
      case UINT8:
        return DataType.UBYTE;
      case INT16:
        return DataType.SHORT;
      case UINT16:
        return DataType.UINT16;
      case INT32:
        return DataType.INT;
      case INT64:
        return DataType.LONG;
      case FLOAT16:
        return DataType.HALF;
      case FLOAT32:
        return DataType.FLOAT;
      case FLOAT64:
        return DataType.DOUBLE;
      default:
        throw new IllegalArgumentException("no ND4J type for " + dtype);
    }
  }

  /**
   * The minibatch type of an ND4J type.
   *
   * @throws IllegalArgumentException for ND4J types minibatch does not provide (e.g. UTF8, BFLOAT16)
   */
  public static DType fromNd4j(DataType type) {
    switch (type) {
      case BOOL:
        return DType.BOOL;
      case BYTE:
        return DType.INT8;
      case UBYTE:
        return DType.UINT8;
      case SHORT:
        return DType.INT16;
      case UINT16:
        return DType.UINT16;
      case INT:
        return DType.INT32;
      case LONG:
        return DType.INT64;
      case HALF:
        return DType.FLOAT16;
      case FLOAT:
        return DType.FLOAT32;
      case DOUBLE:
        return DType.FLOAT64;
      default:
        throw new IllegalArgumentException("ND4J type " + type + " is not supported by minibatch providers");
    }
  }
}
