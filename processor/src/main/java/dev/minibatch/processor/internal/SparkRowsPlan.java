package dev.minibatch.processor.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Decides, before anything is written, whether a validated sample gets a {@code <Sample>SparkRows}
 * class, and what its columns are; {@link SparkRowsWriter} only follows the plan.
 *
 * <p>Generated only when the compile class path has Spark ({@code org.apache.spark.sql.Row}) and
 * the minibatch Spark module ({@code dev.minibatch.spark.SparkRows}), and only for a record whose
 * every component is a {@code @Provides} member of a Java primitive other than {@code char} or a
 * primitive array: the generated {@code fromRow} calls the canonical constructor, and Spark has
 * no column type for {@code char} or {@code INDArray}; a {@code VARIABLE} axis only in a rank-1
 * array (an array column of any length). An encoded-image member ({@code byte[]} with an {@code
 * IMAGE_*} encoding) is a binary column of any length holding the encoded bytes. Other samples are left alone (they are
 * valid samples; they simply have no Spark mapping), which {@code docs/spark.md} documents.
 *
 * @param columns the record's components in declaration order, the constructor's order
 */
record SparkRowsPlan(List<FieldDescriptor> columns) {
  static final String ROW = "org.apache.spark.sql.Row";
  static final String SPARK_ROWS = "dev.minibatch.spark.SparkRows";

  SparkRowsPlan {
    columns = List.copyOf(columns);
  }

  /** True when generated Spark code would compile: Spark and the Spark module are resolvable. */
  static boolean sparkAvailable(dev.minibatch.processor.internal.model.Round round) {
    return round.exists(ROW) && round.exists(SPARK_ROWS);
  }

  /** The plan for {@code d}, or empty when the sample cannot be mapped to Spark columns. */
  static Optional<SparkRowsPlan> of(SampleDescriptor d) {
    List<FieldDescriptor> columns = new ArrayList<>();
    for (String c : d.recordComponents()) {
      FieldDescriptor f = field(d, c);
      if (f == null || !mappable(f)) {
        return Optional.empty();
      }
      columns.add(f);
    }
    return columns.isEmpty() ? Optional.empty() : Optional.of(new SparkRowsPlan(columns));
  }

  private static @Nullable FieldDescriptor field(SampleDescriptor d, String property) {
    for (FieldDescriptor f : d.fields()) {
      if (f.property().equals(property)) {
        return f;
      }
    }
    return null;
  }

  private static boolean mappable(FieldDescriptor f) {
    if (f.primitive() == null || f.primitive().equals("char")) {
      return false;
    }
    // A variable axis maps to an array column of any length only for a rank-1 member; a flat column
    // could not say where a deeper member's variable axis ends.
    if (f.variable() && f.arrayRank() > 1) {
      return false;
    }
    return f.storage() == FieldType.Storage.SCALAR || f.storage() == FieldType.Storage.ARRAY;
  }
}
