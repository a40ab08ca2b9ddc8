package dev.minibatch.processor.internal;

import dev.minibatch.DType;
import dev.minibatch.processor.internal.model.TypeRef;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a member's Java type means to the collate code.
 *
 * @param storage scalar, primitive array or INDArray; null for a type we cannot copy
 * @param primitive the Java primitive of a scalar or of an array's elements ({@code "float"})
 * @param rank the array rank (0 for a scalar or INDArray)
 * @param unresolved true when javac could not resolve the type (yet)
 */
record FieldType(@Nullable Storage storage, @Nullable String primitive, int rank, boolean unresolved) {
  static final String INDARRAY = "org.nd4j.linalg.api.ndarray.INDArray";

  /** How a member's value reaches the batch buffer. */
  enum Storage {
    SCALAR,
    ARRAY,
    INDARRAY
  }

  boolean supported() {
    return storage != null;
  }

  static FieldType of(TypeRef t) {
    boolean primitive = t.kind() == TypeRef.Kind.PRIMITIVE;
    if (t.rank() == 0 && primitive) {
      return new FieldType(Storage.SCALAR, t.name(), 0, false);
    }
    if (t.rank() > 0) {
      if (primitive) {
        return new FieldType(Storage.ARRAY, t.name(), t.rank(), false);
      }
      return new FieldType(null, null, t.rank(), t.kind() == TypeRef.Kind.UNRESOLVED);
    }
    if (t.kind() == TypeRef.Kind.UNRESOLVED) {
      return new FieldType(null, null, 0, true);
    }
    if (t.kind() == TypeRef.Kind.DECLARED && t.name().equals(INDARRAY)) {
      return new FieldType(Storage.INDARRAY, null, 0, false);
    }
    return new FieldType(null, null, 0, false);
  }

  /** The dtype a member of this type gets when the annotation says INFER. */
  DType inferredDType() {
    return primitive == null ? DType.FLOAT32 : DType.ofPrimitive(primitive);
  }

  /**
   * The dtypes this type can be stored as: its own; any wider floating type; a wider integer type;
   * {@code byte} as UINT8 (pixels). An INDArray converts to anything ND4J can cast to.
   */
  List<DType> allowedDTypes() {
    List<DType> out = new ArrayList<>();
    if (storage == Storage.INDARRAY) {
      for (DType d : DType.values()) {
        if (d != DType.INFER) {
          out.add(d);
        }
      }
      return out;
    }
    DType own = inferredDType();
    out.add(own);
    switch (own) {
      case BOOL:
        out.add(DType.INT8);
        out.add(DType.UINT8);
        out.add(DType.INT32);
        break;
      case INT8:
        out.add(DType.UINT8);
        out.add(DType.INT16);
        out.add(DType.INT32);
        out.add(DType.INT64);
        break;
      case INT16:
      case UINT16:
        out.add(DType.INT32);
        out.add(DType.INT64);
        break;
      case INT32:
        out.add(DType.INT64);
        break;
      default:
        break;
    }
    if (own != DType.FLOAT64) {
      if (own != DType.FLOAT32) {
        out.add(DType.FLOAT32);
      }
      out.add(DType.FLOAT64);
    }
    return out;
  }
}
