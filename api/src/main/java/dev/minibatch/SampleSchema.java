package dev.minibatch;

import dev.minibatch.shape.Shape;
import dev.minibatch.shape.ShapeCheck;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one sample holds: its provided arrays ({@link Field}s), each with its name, role, sample
 * shape, dtype, layout and bound. It is the one description of a sample: a generated provider's
 * manifest, a shard set's index and the metadata of its Parquet files all hold it in the one text
 * form {@link #toString()} writes and {@link #parse(String)} reads, and two descriptions agree
 * when they are {@link #equals equal}. {@link DataDesc} is a field at a batch size ({@link
 * Field#toDataDesc(long)}).
 *
 * <p>The text is one line per field, each ended by a newline (see {@link Field#toString()}):
 *
 * <pre>
 * image DATA FLOAT32 [28,28] NHW
 * tokens DATA INT32 [VARIABLE] NT maxLength=50
 * label LABEL INT32 [] N
 * photo DATA FLOAT32 [3,224,224] NCHW encoding=IMAGE_RGB
 * </pre>
 *
 * <p>A field's {@link Encoding} says how a sample's value is stored: as the array's elements ({@link
 * Encoding#RAW}, the default, not written in the text), or as the encoded bytes of an image (a JPEG or
 * PNG) that a reader decodes into the array the field describes, in the channel order the encoding
 * names.
 */
public final class SampleSchema {
  private final List<Field> fields;

  private SampleSchema(List<Field> fields) {
    this.fields = fields;
  }

  /**
   * A schema of {@code fields}, in order.
   *
   * @throws IllegalArgumentException if two fields have the same name (a model binds arrays by name)
   */
  public static SampleSchema of(List<Field> fields) {
    List<Field> copy = List.copyOf(fields);
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < copy.size(); i++) {
      Integer before = seen.putIfAbsent(copy.get(i).name(), i);
      if (before != null) {
        throw new IllegalArgumentException("fields " + before + " and " + i + " are both named '" + copy.get(i).name()
            + "'; names must be unique across data and labels");
      }
    }
    return new SampleSchema(copy);
  }

  /** The fields, in order: as written, {@code provideData()}'s then {@code provideLabel()}'s. */
  public List<Field> fields() {
    return fields;
  }

  /**
   * Parses the text {@link #toString()} writes, exactly: one field per line, each line ended by a
   * newline (the empty text has no field).
   *
   * @throws IllegalArgumentException for anything else, naming the line and column (both from 1)
   *     and what was expected there
   */
  public static SampleSchema parse(String text) {
    List<Field> out = new ArrayList<>();
    Map<String, Integer> lineOf = new HashMap<>();
    int start = 0;
    int line = 1;
    while (start < text.length()) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        throw new IllegalArgumentException("line " + line + ", column " + (text.length() - start + 1)
            + ": expected a newline at the end of the line");
      }
      Field f;
      try {
        f = Field.parse(text.substring(start, end));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("line " + line + ", " + e.getMessage(), e);
      }
      Integer before = lineOf.putIfAbsent(f.name(), line);
      if (before != null) {
        throw new IllegalArgumentException("line " + line + ", column 1: expected a new name, found '" + f.name()
            + "', the name of line " + before + " (names are unique across data and labels)");
      }
      out.add(f);
      start = end + 1;
      line++;
    }
    return new SampleSchema(List.copyOf(out));
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof SampleSchema && fields.equals(((SampleSchema) o).fields);
  }

  @Override
  public int hashCode() {
    return fields.hashCode();
  }

  /** The text form: each field's {@link Field#toString()} and a newline. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Field f : fields) {
      sb.append(f).append('\n');
    }
    return sb.toString();
  }

  /**
   * How a field's value is stored. {@link #RAW}: the array's elements. The {@code IMAGE_*}
   * encodings: the encoded bytes of one image (JPEG, PNG, or another format OpenCV reads), decoded
   * (and augmented) by the reader into the field's array: a sample shape of rank 3 with the channel
   * axis first ({@code NCHW}) or last ({@code NHWC}), holding as many channels as the encoding names
   * in that order, of dtype FLOAT32 or UINT8.
   */
  public enum Encoding {
    /** The array's elements, as they are (the default). */
    RAW(0),
    /** An encoded image decoded to one gray channel. */
    IMAGE_GRAY(1),
    /** An encoded image decoded to red, green and blue channels, in that order. */
    IMAGE_RGB(3),
    /** An encoded image decoded to red, green, blue and alpha channels, in that order (alpha 255 when it has none). */
    IMAGE_RGBA(4);

    private final int channels;

    Encoding(int channels) {
      this.channels = channels;
    }

    /** The channels an image encoding decodes to; 0 for {@link #RAW}. */
    public int channels() {
      return channels;
    }

    /** Whether the values are encoded images. */
    public boolean image() {
      return channels > 0;
    }

    /** The image encoding of {@code channels} channels (1, 3 or 4). */
    public static Encoding image(int channels) {
      for (Encoding e : values()) {
        if (e.channels == channels && e.image()) {
          return e;
        }
      }
      throw new IllegalArgumentException("an image has 1, 3 or 4 channels, got " + channels);
    }
  }

  /**
   * One provided array of a sample.
   *
   * @param name the name a model binds it by: not empty, no whitespace, no control character
   * @param role data or label
   * @param sampleShape the shape of one sample (no batch axis), with at most one {@link
   *     Shape#VARIABLE} axis
   * @param dtype the element type; not {@link DType#INFER}
   * @param layout the batch array's axis names, batch axis first ({@link ShapeCheck#checkLayout}:
   *     one letter per axis of the batch shape)
   * @param maxLength the bound of the variable axis ({@code @Provides(maxLength)}), 0 for none; only
   *     a shape with a variable axis has one
   * @param encoding how a value is stored: {@link Encoding#RAW}, or an image encoding, whose field is
   *     the decoded image ({@link Encoding})
   */
  public record Field(String name, Role role, Shape sampleShape, DType dtype, String layout, long maxLength,
      Encoding encoding) {
    /** The word that stands for {@link Shape#VARIABLE} in a shape's text. */
    private static final String VARIABLE = "VARIABLE";
    private static final String MAX_LENGTH = "maxLength=";
    private static final String ENCODING = "encoding=";

    /**
     * Checks the field.
     *
     * @throws IllegalArgumentException naming the field and the part that is not as documented
     */
    public Field {
      String problem = nameProblem(name);
      if (problem != null) {
        throw new IllegalArgumentException("field name '" + name + "' " + problem);
      }
      if (dtype == DType.INFER) {
        throw new IllegalArgumentException("field '" + name + "': dtype INFER is not a concrete type");
      }
      problem = ShapeCheck.checkLayout(layout, sampleShape.rank());
      if (problem != null) {
        throw new IllegalArgumentException("field '" + name + "' of sample shape " + sampleShape + ": " + problem);
      }
      if (maxLength < 0 || maxLength > 0 && sampleShape.isFixed()) {
        throw new IllegalArgumentException("field '" + name + "': maxLength " + maxLength + (maxLength < 0
            ? " is negative" : " needs a VARIABLE axis in the sample shape " + sampleShape));
      }
      java.util.Objects.requireNonNull(encoding, "encoding");
      problem = imageProblem(sampleShape, dtype, layout, encoding);
      if (problem != null) {
        throw new IllegalArgumentException("field '" + name + "' of sample shape " + sampleShape + ": " + problem);
      }
    }

    /** A field whose values are stored as they are ({@link Encoding#RAW}). */
    public Field(String name, Role role, Shape sampleShape, DType dtype, String layout, long maxLength) {
      this(name, role, sampleShape, dtype, layout, maxLength, Encoding.RAW);
    }

    /** Why an image encoding cannot describe this array, or null (always null for RAW). */
    private static @Nullable String imageProblem(Shape shape, DType dtype, String layout, Encoding encoding) {
      if (!encoding.image()) {
        return null;
      }
      if (shape.rank() != 3 || !shape.isFixed() || !(layout.equals("NCHW") || layout.equals("NHWC"))) {
        return encoding + " decodes to a fixed (channels, height, width) array of layout NCHW, or (height, width,"
            + " channels) of layout NHWC; got layout " + layout;
      }
      long channels = shape.dim(layout.equals("NCHW") ? 0 : 2);
      if (channels != encoding.channels()) {
        return encoding + " decodes to " + encoding.channels() + " channel" + (encoding.channels() == 1 ? "" : "s")
            + ", the layout " + layout + " gives " + channels;
      }
      if (dtype != DType.FLOAT32 && dtype != DType.UINT8) {
        return encoding + " decodes to FLOAT32 or UINT8 pixels, not " + dtype;
      }
      return null;
    }

    /** The field {@code d} describes: its sample shape, and the rest as it is. */
    public static Field of(DataDesc d) {
      return new Field(d.name(), d.role(), d.sampleShape(), d.dtype(), d.layout(), d.maxLength());
    }

    /** The description of a batch array of {@code batchSize} samples of this field. */
    public DataDesc toDataDesc(long batchSize) {
      return DataDesc.builder().name(name).shape(sampleShape.withBatch(batchSize)).dtype(dtype).layout(layout)
          .role(role).maxLength(maxLength).build();
    }

    /**
     * The text form, its parts separated by one space: name, role, dtype, the sample shape in
     * brackets (dims separated by commas, {@code VARIABLE} for the variable axis, {@code []} for a
     * scalar), the layout, for a bound {@code maxLength=} and the bound, and for an encoding other
     * than RAW {@code encoding=} and its name. For example {@code image DATA FLOAT32 [28,28] NHW},
     * {@code tokens DATA INT32 [VARIABLE,8] NTC maxLength=50} or {@code photo DATA UINT8 [224,224,3]
     * NHWC encoding=IMAGE_RGB}.
     */
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder(name).append(' ').append(role).append(' ').append(dtype).append(" [");
      for (int i = 0; i < sampleShape.rank(); i++) {
        long d = sampleShape.dim(i);
        sb.append(i == 0 ? "" : ",").append(d == Shape.VARIABLE ? VARIABLE : Long.toString(d));
      }
      sb.append("] ").append(layout);
      if (maxLength > 0) {
        sb.append(' ').append(MAX_LENGTH).append(maxLength);
      }
      if (encoding != Encoding.RAW) {
        sb.append(' ').append(ENCODING).append(encoding);
      }
      return sb.toString();
    }

    /**
     * Parses the text {@link #toString()} writes, exactly (one space between parts, no other
     * whitespace, numbers without sign or leading zero).
     *
     * @throws IllegalArgumentException for anything else, starting {@code "column N: expected"}
     *     with the column (from 1) where the text departs from the form and what belongs there
     */
    public static Field parse(String text) {
      String[] parts = text.split(" ", -1);
      int[] at = new int[parts.length];
      for (int i = 1; i < parts.length; i++) {
        at[i] = at[i - 1] + parts[i - 1].length() + 1;
      }
      String problem = nameProblem(parts[0]);
      if (problem != null) {
        throw new IllegalArgumentException("column 1: expected a name (not empty, no whitespace or control character),"
            + " found '" + parts[0] + "', which " + problem);
      }
      String name = parts[0];
      if (parts.length < 5) {
        throw new IllegalArgumentException("column " + (text.length() + 1) + ": expected "
            + List.of("", "a role", "a dtype", "a shape", "a layout").get(parts.length)
            + " after a space (the form is 'name role dtype [dims] layout', then 'maxLength=N' for a bound), found the "
            + "end of the line");
      }
      Role role = constant(Role.class, parts[1], at[1], "a role");
      DType dtype = constant(DType.class, parts[2], at[2], "a dtype");
      if (dtype == DType.INFER) {
        throw new IllegalArgumentException("column " + (at[2] + 1) + ": expected a dtype, found INFER, which is not a"
            + " concrete type");
      }
      Shape shape = shape(parts[3], at[3]);
      String layout = parts[4];
      problem = ShapeCheck.checkLayout(layout, shape.rank());
      if (problem != null) {
        throw new IllegalArgumentException("column " + (at[4] + 1) + ": expected a layout for the sample shape "
            + parts[3] + ": " + problem);
      }
      long maxLength = 0;
      int next = 5;
      if (parts.length > next && !parts[next].startsWith(ENCODING)) {
        String bound = parts[next];
        if (!bound.startsWith(MAX_LENGTH)) {
          throw new IllegalArgumentException("column " + (at[next] + 1) + ": expected '" + MAX_LENGTH
              + "' and the bound of the variable axis, found '" + bound + "'");
        }
        int column = at[next] + MAX_LENGTH.length() + 1;
        maxLength = number(bound.substring(MAX_LENGTH.length()), column, "a bound");
        if (shape.isFixed()) {
          throw new IllegalArgumentException("column " + (at[next] + 1) + ": expected the end of the line, found '"
              + bound + "': the sample shape " + parts[3] + " has no VARIABLE axis to bound");
        }
        next++;
      }
      Encoding encoding = Encoding.RAW;
      if (parts.length > next) {
        String given = parts[next];
        if (!given.startsWith(ENCODING)) {
          throw new IllegalArgumentException("column " + (at[next] + 1) + ": expected '" + ENCODING
              + "' and an encoding, or the end of the line, found '" + given + "'");
        }
        encoding = constant(Encoding.class, given.substring(ENCODING.length()), at[next] + ENCODING.length(),
            "an encoding");
        String problem2 = imageProblem(shape, dtype, layout, encoding);
        if (encoding == Encoding.RAW || problem2 != null) {
          throw new IllegalArgumentException("column " + (at[next] + 1) + ": expected an encoding for " + parts[2] + " "
              + parts[3] + " " + layout + ", found '" + given + "': " + (problem2 != null ? problem2
              : "RAW is the default and is not written"));
        }
        next++;
      }
      if (parts.length > next) {
        throw new IllegalArgumentException("column " + (at[next]) + ": expected the end of the line, found ' "
            + parts[next] + "'");
      }
      return new Field(name, role, shape, dtype, layout, maxLength, encoding);
    }

    /** Why {@code name} cannot name a field, or null: the rule {@code @Provides(name)} has. */
    private static @Nullable String nameProblem(String name) {
      if (name.isEmpty()) {
        return "is empty";
      }
      for (int i = 0; i < name.length(); i++) {
        char c = name.charAt(i);
        if (Character.isWhitespace(c) || Character.isISOControl(c)) {
          return "has " + (Character.isWhitespace(c) ? "whitespace" : "a control character") + " at index " + i;
        }
      }
      return null;
    }

    private static <E extends Enum<E>> E constant(Class<E> type, String text, int at, String what) {
      for (E e : type.getEnumConstants()) {
        if (e.name().equals(text)) {
          return e;
        }
      }
      throw new IllegalArgumentException("column " + (at + 1) + ": expected " + what + " (one of "
          + java.util.Arrays.toString(type.getEnumConstants()) + "), found '" + text + "'");
    }

    /** The shape {@code [d0,d1,...]} at offset {@code at} of the line. */
    private static Shape shape(String text, int at) {
      if (text.length() < 2 || text.charAt(0) != '[' || text.charAt(text.length() - 1) != ']') {
        throw new IllegalArgumentException("column " + (at + 1) + ": expected a sample shape in brackets ([28,28],"
            + " [VARIABLE,8], [] for a scalar), found '" + text + "'");
      }
      if (text.length() == 2) {
        return Shape.scalar();
      }
      String[] items = text.substring(1, text.length() - 1).split(",", -1);
      long[] dims = new long[items.length];
      int column = at + 2;
      for (int i = 0; i < items.length; i++) {
        dims[i] = items[i].equals(VARIABLE) ? Shape.VARIABLE
            : number(items[i], column, "a dim (a positive integer, or VARIABLE for the variable axis)");
        column += items[i].length() + 1;
      }
      String problem = ShapeCheck.checkDims(dims);
      if (problem != null) {
        throw new IllegalArgumentException("column " + (at + 1) + ": expected a sample shape with at most one VARIABLE"
            + " axis, found " + text + ": " + problem);
      }
      return Shape.of(dims);
    }

    /** A positive decimal without sign or leading zero, at column {@code column}. */
    private static long number(String text, int column, String what) {
      boolean digits = !text.isEmpty() && text.length() <= 19 && text.charAt(0) != '0';
      for (int i = 0; digits && i < text.length(); i++) {
        digits = text.charAt(i) >= '0' && text.charAt(i) <= '9';
      }
      if (digits) {
        try {
          return Long.parseLong(text);
        } catch (NumberFormatException e) {
          // above Long.MAX_VALUE: reported below
        }
      }
      throw new IllegalArgumentException("column " + column + ": expected " + what + ", found '" + text + "'");
    }
  }
}
