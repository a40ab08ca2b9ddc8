package dev.minibatch;

import com.google.auto.value.AutoValue;
import dev.minibatch.shape.Shape;

/**
 * Describes one provided array (MXNet's {@code DataDesc}): its name, its batch shape with the batch
 * axis first, its element type, its layout string and whether it is data or a label.
 */
@AutoValue
public abstract class DataDesc {
  DataDesc() {}

  /** The name a model binds the array by (a placeholder or input name). */
  public abstract String name();

  /** The batch shape, batch axis first: {@code (batchSize, ...sampleShape)}. */
  public abstract Shape shape();

  /** The element type. Never {@link DType#INFER}. */
  public abstract DType dtype();

  /**
   * The axis names, batch axis first, e.g. {@code "NC"}, {@code "NCHW"}. Defaults to {@link
   * #defaultLayout(int)} of the shape's rank.
   */
  public abstract String layout();

  /** Whether this is a model input or a label. */
  public abstract Role role();

  /** The batch size: the first axis of {@link #shape()}. */
  public final long batchSize() {
    return shape().dim(0);
  }

  /** The shape of one sample: {@link #shape()} without the batch axis. */
  public final Shape sampleShape() {
    return shape().dropFirst();
  }

  /** A builder; name, shape and dtype are required, role defaults to DATA. */
  public static Builder builder() {
    return new AutoValue_DataDesc.Builder().role(Role.DATA);
  }

  /** A description of a batch array of {@code batchSize} samples of {@code sampleShape}. */
  public static DataDesc of(String name, long batchSize, Shape sampleShape, DType dtype, Role role) {
    return builder().name(name).shape(sampleShape.withBatch(batchSize)).dtype(dtype).role(role).build();
  }

  /** A copy of this description with another batch size. */
  public final DataDesc withBatchSize(long batchSize) {
    return toBuilder().shape(sampleShape().withBatch(batchSize)).build();
  }

  /** A builder initialised from this description. */
  public abstract Builder toBuilder();

  /**
   * The layout MXNet uses for a batch array of this rank: {@code N}, {@code NC}, {@code NTC} (a
   * sequence), {@code NCHW}, {@code NCDHW}; beyond rank 5, {@code N} followed by one {@code _} per
   * axis.
   */
  public static String defaultLayout(int batchRank) {
    switch (batchRank) {
      case 1:
        return "N";
      case 2:
        return "NC";
      case 3:
        return "NTC";
      case 4:
        return "NCHW";
      case 5:
        return "NCDHW";
      default:
        return "N" + "_".repeat(Math.max(0, batchRank - 1));
    }
  }

  /** Builds {@link DataDesc}s. */
  @AutoValue.Builder
  public abstract static class Builder {
    Builder() {}

    /** The name. */
    public abstract Builder name(String name);

    /** The batch shape, batch axis first. */
    public abstract Builder shape(Shape shape);

    /** The element type. */
    public abstract Builder dtype(DType dtype);

    /** The layout string; optional. */
    public abstract Builder layout(String layout);

    /** Data or label. */
    public abstract Builder role(Role role);

    abstract Shape shape();

    abstract DType dtype();

    abstract String name();

    abstract java.util.Optional<String> layout();

    abstract DataDesc autoBuild();

    /**
     * Builds the description.
     *
     * @throws IllegalArgumentException for an empty name, a rank-0 shape (the batch axis is
     *     missing), {@link DType#INFER}, or a layout whose length is not the shape's rank
     */
    public final DataDesc build() {
      if (name().isEmpty()) {
        throw new IllegalArgumentException("a DataDesc needs a non-empty name");
      }
      if (shape().rank() == 0) {
        throw new IllegalArgumentException("DataDesc '" + name() + "': the shape must start with the batch axis");
      }
      if (dtype() == DType.INFER) {
        throw new IllegalArgumentException("DataDesc '" + name() + "': dtype INFER is not a concrete type");
      }
      if (layout().isEmpty()) {
        layout(defaultLayout(shape().rank()));
      }
      DataDesc d = autoBuild();
      if (d.layout().length() != d.shape().rank()) {
        throw new IllegalArgumentException("DataDesc '" + d.name() + "': layout '" + d.layout()
            + "' names " + d.layout().length() + " axes but shape " + d.shape() + " has " + d.shape().rank());
      }
      return d;
    }
  }
}
