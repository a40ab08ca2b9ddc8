package dev.minibatch.runtime;

import dev.minibatch.runtime.Batch.SlicedNDArray;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The base of every batch: named arrays laid out by a {@link BatchLayout}, with the row count, the
 * padding and the sample indices. {@link NamedBatch} and the generated typed batches extend it, so
 * lookup by name, {@code loadData}, slicing, splitting and copying behave the same everywhere.
 *
 * <p>Providers reuse batch objects: {@link #reset} re-points one at the next batch's contents.
 *
 * @param <B> the concrete batch type, returned by {@link #slice}, {@link #split} and {@link #copy}
 */
public abstract class AbstractBatch<B extends AbstractBatch<B>> implements Batch {
  private static final long[] NO_INDICES = new long[0];

  private final BatchLayout layout;
  private final INDArray[] arrays;
  private int rows;
  private int pad;
  private long[] indices = NO_INDICES;
  private final List<INDArray> dataList;
  private final List<INDArray> labelList;
  private static final INDArray[] NONE = new INDArray[0];
  /** Per length group (variable-length members only): the mask and the lengths. */
  private INDArray[] masks = NONE;
  private INDArray[] lengths = NONE;
  /** Per layout position: its length group, or -1; null when no member has a variable axis. */
  private int @Nullable [] groups;
  private int bucketKey = -1;
  private long realSteps;
  private long paddedSteps;

  /** An empty batch of {@code layout}; a provider fills it with {@link #reset}. */
  protected AbstractBatch(BatchLayout layout) {
    this.layout = layout;
    this.arrays = new INDArray[layout.size()];
    int nData = layout.data().size();
    this.dataList = new ArrayView(0, nData);
    this.labelList = new ArrayView(nData, layout.size());
  }

  /** A new, empty batch of the same type and layout (used by slice, split and copy). */
  protected abstract B newBatch();

  /** The layout. */
  public final BatchLayout layout() {
    return layout;
  }

  /**
   * For providers: makes this batch show {@code contents} (one array per layout position, each with
   * {@code rows} rows), of which the last {@code pad} rows are padding, and {@code sampleIndices[0,
   * rows)}. The arrays and the index array are used, not copied.
   */
  public final void reset(INDArray[] contents, int rows, int pad, long[] sampleIndices) {
    if (contents.length != arrays.length) {
      throw new IllegalArgumentException("expected " + arrays.length + " arrays, got " + contents.length);
    }
    if (pad < 0 || pad > rows || sampleIndices.length < rows) {
      throw new IllegalArgumentException("inconsistent batch: rows " + rows + ", pad " + pad + ", " + sampleIndices.length + " indices");
    }
    System.arraycopy(contents, 0, arrays, 0, arrays.length);
    this.rows = rows;
    this.pad = pad;
    this.indices = sampleIndices;
  }

  /**
   * For providers of variable-length members: the masks and lengths per length group, the length
   * group of each layout position (-1 for a fixed one), the bucket key (-1: none), and the real and
   * padded steps of the rows that hold samples. Call after {@link #reset}; used, not copied.
   */
  public final void resetSequences(INDArray[] masks, INDArray[] lengths, int[] groups, int bucketKey, long realSteps,
      long paddedSteps) {
    if (groups.length != arrays.length || masks.length != lengths.length) {
      throw new IllegalArgumentException("expected a group per array and a length per mask");
    }
    this.masks = masks;
    this.lengths = lengths;
    this.groups = groups;
    this.bucketKey = bucketKey;
    this.realSteps = realSteps;
    this.paddedSteps = paddedSteps;
  }

  /** The mask of length group {@code g}; for generated accessors. */
  protected final INDArray maskOf(int g) {
    return masks[g];
  }

  /** The lengths of length group {@code g}; for generated accessors. */
  protected final INDArray lengthsOf(int g) {
    return lengths[g];
  }

  @Override
  public final @Nullable INDArray mask(String name) {
    int g = groupOf(name);
    return g < 0 ? null : masks[g];
  }

  @Override
  public final @Nullable INDArray lengths(String name) {
    int g = groupOf(name);
    return g < 0 ? null : lengths[g];
  }

  private int groupOf(String name) {
    int p = layout.position(name);
    int[] gs = groups;
    return gs == null ? -1 : gs[p];
  }

  @Override
  public final int bucketKey() {
    return bucketKey;
  }

  /**
   * The steps of the rows that hold samples that are real (the sum of their lengths over every
   * length group); 0 without variable-length members.
   */
  public final long realSteps() {
    return realSteps;
  }

  /** The padded steps of the rows that hold samples (padding rows not counted); 0 without variable-length members. */
  public final long paddedSteps() {
    return paddedSteps;
  }

  /** The array at layout position {@code i} (data first, then labels); for generated accessors. */
  protected final INDArray array(int i) {
    return arrays[i];
  }

  @Override
  public final int countSamples() {
    return rows - pad;
  }

  @Override
  public final int pad() {
    return pad;
  }

  @Override
  public final int rows() {
    return rows;
  }

  @Override
  public final List<INDArray> data() {
    return dataList;
  }

  @Override
  public final List<INDArray> label() {
    return labelList;
  }

  @Override
  public final List<String> names() {
    return layout.names();
  }

  @Override
  public final INDArray get(String name) {
    return arrays[layout.position(name)];
  }

  @Override
  public final long sampleIndex(int row) {
    if (row < 0 || row >= rows) {
      throw new IndexOutOfBoundsException("row " + row + " of a batch with " + rows + " rows");
    }
    return indices[row];
  }

  @Override
  public final long[] sampleIndices() {
    return Arrays.copyOf(indices, rows);
  }

  @Override
  public final void loadData(List<? extends List<SlicedNDArray>> targets) {
    load(targets, 0, layout.data().size(), "data");
  }

  @Override
  public final void loadLabel(List<? extends List<SlicedNDArray>> targets) {
    load(targets, layout.data().size(), layout.size(), "label");
  }

  private void load(List<? extends List<SlicedNDArray>> targets, int from, int to, String role) {
    if (targets.size() != to - from) {
      throw new IllegalArgumentException("expected one list of targets per " + role + " array (" + (to - from)
          + ": " + layout.names().subList(from, to) + "), got " + targets.size());
    }
    for (int i = from; i < to; i++) {
      INDArray src = arrays[i];
      for (SlicedNDArray t : targets.get(i - from)) {
        if (t.to() > rows) {
          throw new IllegalArgumentException("target rows [" + t.from() + ", " + t.to() + ") of '"
              + layout.names().get(i) + "' exceed the batch's " + rows + " rows");
        }
        long[] want = src.shape().clone();
        want[0] = t.to() - t.from();
        if (!Arrays.equals(want, t.target().shape())) {
          throw new IllegalArgumentException("target for '" + layout.names().get(i) + "' rows [" + t.from() + ", "
              + t.to() + ") has shape " + Arrays.toString(t.target().shape()) + ", expected " + Arrays.toString(want));
        }
        t.target().assign(src.get(NDArrayIndex.interval(t.from(), t.to())));
      }
    }
  }

  @Override
  public final B slice(int from, int to) {
    if (from < 0 || to > rows || from >= to) {
      throw new IllegalArgumentException("cannot slice rows [" + from + ", " + to + ") of a batch with " + rows + " rows");
    }
    INDArray[] views = new INDArray[arrays.length];
    for (int i = 0; i < arrays.length; i++) {
      views[i] = arrays[i].get(NDArrayIndex.interval(from, to));
    }
    int real = rows - pad;
    int subPad = Math.max(0, to - Math.max(from, real));
    B b = newBatch();
    b.reset(views, to - from, subPad, Arrays.copyOfRange(indices, from, to));
    carrySequences(b, a -> a.get(NDArrayIndex.interval(from, to)), from, Math.min(to, real));
    return b;
  }

  /**
   * Gives {@code b} this batch's masks and lengths, each through {@code view}, with the steps of
   * rows {@code [realFrom, realTo)}.
   */
  private void carrySequences(AbstractBatch<?> b, java.util.function.UnaryOperator<INDArray> view, int realFrom,
      int realTo) {
    int[] gs = groups;
    if (gs == null) {
      return;
    }
    INDArray[] m = new INDArray[masks.length];
    INDArray[] l = new INDArray[lengths.length];
    long real = 0;
    long padded = 0;
    for (int g = 0; g < masks.length; g++) {
      m[g] = view.apply(masks[g]);
      l[g] = view.apply(lengths[g]);
      long steps = masks[g].size(1);
      for (int r = realFrom; r < realTo; r++) {
        int len = lengths[g].getInt(r);
        real += len;
        padded += steps - len;
      }
    }
    b.resetSequences(m, l, gs, bucketKey, real, padded);
  }

  @Override
  public final List<B> split(List<Device> devices) {
    return place(BatchSplitter.even(rows, devices.size()), devices);
  }

  /** Splits by relative work loads ({@link BatchSplitter#weighted}), one weight per device. */
  public final List<B> split(List<Device> devices, double... workLoads) {
    if (workLoads.length != devices.size()) {
      throw new IllegalArgumentException(devices.size() + " devices but " + workLoads.length + " work loads");
    }
    return place(BatchSplitter.weighted(rows, workLoads), devices);
  }

  private List<B> place(List<SampleRange> ranges, List<Device> devices) {
    List<B> out = new ArrayList<>(ranges.size());
    for (int d = 0; d < ranges.size(); d++) {
      B part = slice(ranges.get(d).from(), ranges.get(d).to());
      Device device = devices.get(d);
      if (device.kind() != Device.Kind.CPU) {
        INDArray[] placed = new INDArray[arrays.length];
        for (int i = 0; i < arrays.length; i++) {
          placed[i] = Placement.place(part.array(i), device);
        }
        AbstractBatch<?> p = part;
        part.reset(placed, part.rows(), part.pad(), p.indices);
        if (p.groups != null) {
          INDArray[] m = new INDArray[p.masks.length];
          INDArray[] l = new INDArray[p.lengths.length];
          for (int g = 0; g < m.length; g++) {
            m[g] = Placement.place(p.masks[g], device);
            l[g] = Placement.place(p.lengths[g], device);
          }
          part.resetSequences(m, l, p.groups, p.bucketKey, p.realSteps, p.paddedSteps);
        }
      }
      out.add(part);
    }
    return out;
  }

  @Override
  public final B copy() {
    INDArray[] copies = new INDArray[arrays.length];
    for (int i = 0; i < arrays.length; i++) {
      copies[i] = arrays[i].dup();
    }
    B b = newBatch();
    b.reset(copies, rows, pad, Arrays.copyOf(indices, rows));
    if (groups != null) {
      INDArray[] m = new INDArray[masks.length];
      INDArray[] l = new INDArray[lengths.length];
      for (int g = 0; g < m.length; g++) {
        m[g] = masks[g].dup();
        l[g] = lengths[g].dup();
      }
      b.resetSequences(m, l, groups, bucketKey, realSteps, paddedSteps);
    }
    return b;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(getClass().getSimpleName()).append("(rows=").append(rows).append(", pad=").append(pad);
    for (int i = 0; i < arrays.length; i++) {
      INDArray a = arrays[i];
      sb.append(", ").append(layout.names().get(i)).append('=')
          .append(a == null ? "unset" : a.dataType() + Arrays.toString(a.shape()));
    }
    return sb.append(')').toString();
  }

  /** A read-only list over a range of the current arrays, so data()/label() allocate nothing. */
  private final class ArrayView extends AbstractList<INDArray> {
    private final int from;
    private final int to;

    ArrayView(int from, int to) {
      this.from = from;
      this.to = to;
    }

    @Override
    public INDArray get(int index) {
      if (index < 0 || index >= to - from) {
        throw new IndexOutOfBoundsException(index);
      }
      return arrays[from + index];
    }

    @Override
    public int size() {
      return to - from;
    }
  }
}
