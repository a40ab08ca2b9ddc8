package dev.minibatch.runtime.spi;

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
        return DataType.INT8;
      case UINT8:
        return DataType.UINT8;
      case INT16:
        return DataType.INT16;
      case UINT16:
        return DataType.UINT16;
      case INT32:
        return DataType.INT32;
      case INT64:
        return DataType.INT64;
      case FLOAT16:
        return DataType.FLOAT16;
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
    // ND4J's non-deprecated names (INT32, FLOAT16, ...) are aliases of the deprecated enum constants,
    // not constants themselves, so they cannot be switch labels: compare instead.
    if (type == DataType.BOOL) {
      return DType.BOOL;
    } else if (type == DataType.INT8) {
      return DType.INT8;
    } else if (type == DataType.UINT8) {
      return DType.UINT8;
    } else if (type == DataType.INT16) {
      return DType.INT16;
    } else if (type == DataType.UINT16) {
      return DType.UINT16;
    } else if (type == DataType.INT32) {
      return DType.INT32;
    } else if (type == DataType.INT64) {
      return DType.INT64;
    } else if (type == DataType.FLOAT16) {
      return DType.FLOAT16;
    } else if (type == DataType.FLOAT) {
      return DType.FLOAT32;
    } else if (type == DataType.DOUBLE) {
      return DType.FLOAT64;
    }
    throw new IllegalArgumentException("ND4J type " + type + " is not supported by minibatch providers");
  }

}
