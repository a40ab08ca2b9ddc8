package dev.minibatch;

import com.google.auto.value.AutoValue;
import dev.minibatch.shape.Shape;
import dev.minibatch.shape.ShapeCheck;

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
   * The axis names, batch axis first, e.g. {@code "NC"}, {@code "NHW"}, {@code "NCHW"}, {@code
   * "NTC"}: as declared ({@code @Provides(layout = ...)} or {@link Builder#layout(String)}), else
   * {@link #defaultLayout(Shape)} of the shape.
   */
  public abstract String layout();

  /** Whether this is a model input or a label. */
  public abstract Role role();

  /**
   * The bound of the variable axis ({@link Shape#variableAxis()} of {@link #shape()}, where the shape
   * holds {@link Shape#VARIABLE}): the declared {@code @Provides(maxLength)}, or 0 when there is no
   * bound or no variable axis. A batch's own arrays have the actual length there.
   */
  public abstract long maxLength();

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
    return new AutoValue_DataDesc.Builder().role(Role.DATA).maxLength(0);
  }

  /** A description of a batch array of {@code batchSize} samples of {@code sampleShape}. */
  public static DataDesc of(String name, long batchSize, Shape sampleShape, DType dtype, Role role) {
    return builder().name(name).shape(sampleShape.withBatch(batchSize)).dtype(dtype).role(role).build();
  }

  /**
   * A description of a batch array of {@code batchSize} samples of {@code sampleShape} with a
   * declared layout ({@code ""} for {@link #defaultLayout(Shape)}).
   *
   * @throws IllegalArgumentException for a layout {@link ShapeCheck#checkLayout} rejects
   */
  public static DataDesc of(String name, long batchSize, Shape sampleShape, DType dtype, Role role, String layout) {
    Builder b = builder().name(name).shape(sampleShape.withBatch(batchSize)).dtype(dtype).role(role);
    return (layout.isEmpty() ? b : b.layout(layout)).build();
  }

  /**
   * {@link #of(String, long, Shape, DType, Role, String)} for a sample shape with a {@link
   * Shape#VARIABLE} axis bounded by {@code maxLength} (0: unbounded).
   */
  public static DataDesc of(String name, long batchSize, Shape sampleShape, DType dtype, Role role, String layout,
      long maxLength) {
    Builder b = builder().name(name).shape(sampleShape.withBatch(batchSize)).dtype(dtype).role(role)
        .maxLength(maxLength);
    return (layout.isEmpty() ? b : b.layout(layout)).build();
  }

  /** A copy of this description with another batch size. */
  public final DataDesc withBatchSize(long batchSize) {
    return toBuilder().shape(sampleShape().withBatch(batchSize)).build();
  }

  /** A builder initialised from this description. */
  public abstract Builder toBuilder();

  /**
   * The layout minibatch gives a batch array of {@code batchShape} when none is declared. Rank by
   * rank (the sample's axes, after the batch axis {@code N}):
   *
   * <ul>
   *   <li>a scalar sample: {@code N};
   *   <li>a vector (a table row, a flattened image): {@code NC};
   *   <li>a matrix: {@code NHW}, a single-channel image such as MNIST's 28×28. A sequence of
   *       feature vectors has the same shape; declare it {@code NTC} ({@code @Provides(layout =
   *       "NTC")}), since the shape alone cannot tell;
   *   <li>three axes: {@code NCHW} when the first is channel-sized (1 to 4: grey, RGB, RGBA), else
   *       {@code NHWC} when the last is, else {@code NCHW} (MXNet's default for a 4-D batch);
   *   <li>four axes: {@code NCDHW} (MXNet's default for a 5-D batch);
   *   <li>more: {@code N} and one {@code _} (unnamed) per axis.
   * </ul>
   *
   * <p>A sample with a {@link Shape#VARIABLE} axis is a sequence, whose variable axis is {@code T}:
   * {@code NT} for a sequence of scalars (token ids), {@code NTC} for one of vectors, {@code NCT}
   * when the variable axis comes last (channels first, as DL4J's recurrent layers default to), and
   * for more axes {@code T} at the variable axis and {@code _} elsewhere.
   */
  public static String defaultLayout(Shape batchShape) {
    int sampleRank = batchShape.rank() - 1;
    int variable = batchShape.variableAxis();
    if (variable > 0) {
      switch (sampleRank) {
        case 1:
          return "NT";
        case 2:
          return variable == 1 ? "NTC" : "NCT";
        default:
          StringBuilder sb = new StringBuilder("N");
          for (int axis = 1; axis <= sampleRank; axis++) {
            sb.append(axis == variable ? 'T' : '_');
          }
          return sb.toString();
      }
    }
    switch (sampleRank) {
      case -1:
      case 0:
        return "N";
      case 1:
        return "NC";
      case 2:
        return "NHW";
      case 3:
        if (!channelSized(batchShape.dim(1)) && channelSized(batchShape.dim(3))) {
          return "NHWC";
        }
        return "NCHW";
      case 4:
        return "NCDHW";
      default:
        return "N" + "_".repeat(sampleRank);
    }
  }

  /** 1 to 4 channels: grey, grey and alpha, RGB, RGBA. */
  private static boolean channelSized(long dim) {
    return dim >= 1 && dim <= 4;
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

    /** The bound of the variable axis; 0 (the default) for none. */
    public abstract Builder maxLength(long maxLength);

    abstract long maxLength();

    abstract Shape shape();

    abstract DType dtype();

    abstract String name();

    abstract java.util.Optional<String> layout();

    abstract DataDesc autoBuild();

    /**
     * Builds the description.
     *
     * @throws IllegalArgumentException for an empty name, a rank-0 shape (the batch axis is
     *     missing), a negative maxLength or one without a variable axis, {@link DType#INFER}, or a layout that {@link ShapeCheck#checkLayout} rejects
     *     (one letter per axis of the shape, starting with {@code N})
     */
    public final DataDesc build() {
      if (name().isEmpty()) {
        throw new IllegalArgumentException("a DataDesc needs a non-empty name");
      }
      if (shape().rank() == 0) {
        throw new IllegalArgumentException("DataDesc '" + name() + "': the shape must start with the batch axis");
      }
      if (maxLength() < 0 || maxLength() > 0 && shape().isFixed()) {
        throw new IllegalArgumentException("DataDesc '" + name() + "': maxLength " + maxLength()
            + (maxLength() < 0 ? " is negative" : " needs a VARIABLE axis in the shape " + shape()));
      }
      if (dtype() == DType.INFER) {
        throw new IllegalArgumentException("DataDesc '" + name() + "': dtype INFER is not a concrete type");
      }
      if (layout().isEmpty()) {
        layout(defaultLayout(shape()));
      }
      DataDesc d = autoBuild();
      String problem = ShapeCheck.checkLayout(d.layout(), d.shape().rank() - 1);
      if (problem != null) {
        throw new IllegalArgumentException("DataDesc '" + d.name() + "' of shape " + d.shape() + ": " + problem);
      }
      return d;
    }
  }
}
