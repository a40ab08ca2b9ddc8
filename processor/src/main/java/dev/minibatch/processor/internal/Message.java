package dev.minibatch.processor.internal;

import java.util.Locale;

/**
 * Every diagnostic the processor can print, with its stable ID and its text. This is the only place
 * that holds message text: validators pick a constant and pass the arguments. Each ID is documented,
 * with an example and the fix, in {@code docs/diagnostics.md}; IDs never change meaning once
 * released, so builds and IDE filters can rely on them.
 */
enum Message {
  /** {@code @DataProvider} on an interface, enum, annotation or abstract class. */
  NOT_A_CLASS("NotAClass",
      "@DataProvider needs a concrete class or record that describes one sample, but %s is %s"),
  /** A non-static inner, local or anonymous class. */
  INNER_CLASS("InnerClass",
      "@DataProvider type %s is an inner class; generated code cannot create or read it without an "
          + "enclosing instance. Make it static (or a top-level class or record)"),
  /** The sample type, or a type enclosing it, is private. */
  PRIVATE_CLASS("PrivateClass",
      "@DataProvider type %s is not visible to the code generated in package '%s' because %s is private; "
          + "make it package-private or public"),
  /** {@code batchSize < 0}. */
  NEGATIVE_BATCH_SIZE("NegativeBatchSize",
      "batchSize is %d; it must be > 0, or 0 to set it on the builder"),
  /** A shape dim {@code <= 0}; the text after the colon is {@link dev.minibatch.shape.ShapeCheck}'s. */
  SHAPE_DIM("ShapeDim", "@Provides '%s': %s"),
  /** An array member whose rank differs from the shape's (and is not a flat rank-1 array). */
  SHAPE_RANK("ShapeRank", "@Provides '%s' has type %s and shape %s: %s"),
  /** A declared layout whose length is not the shape's rank plus one (the batch axis). */
  LAYOUT_RANK("LayoutRank", "@Provides '%s' has shape %s: %s"),
  /** A declared layout that is not N followed by upper-case letters or _, each letter once. */
  INVALID_LAYOUT("InvalidLayout", "@Provides '%s': %s"),
  /** A primitive scalar member with a non-empty shape. */
  SCALAR_SHAPE("ScalarShape",
      "@Provides '%s' is a scalar of type %s but declares shape %s; a scalar has shape {}. Use an array "
          + "type (e.g. %s[]) to provide %s, or drop the shape"),
  /** An array member without a shape. */
  MISSING_SHAPE("MissingShape",
      "@Provides '%s' is an array of type %s but declares no shape; the batch tensor needs the per-sample "
          + "shape at compile time, e.g. shape = {%s}"),
  /** A member type the collate code cannot copy. */
  UNSUPPORTED_TYPE("UnsupportedType",
      "@Provides %s has type %s; supported types are the eight primitives, primitive arrays of any "
          + "rank, and org.nd4j.linalg.api.ndarray.INDArray%s"),
  /** A Kotlin member of a nullable type ({@code FloatArray?}, {@code Float?}). */
  NULLABLE_MEMBER("NullableMember",
      "@Provides %s has the nullable type %s; a sample's values cannot be null. Declare it %s, with a default "
          + "value if a sample may have none"),
  /** A Kotlin member of a value-class type, whose getter's JVM name Kotlin mangles. */
  VALUE_CLASS("ValueClass",
      "@Provides %s has type %s, a Kotlin value class: Kotlin mangles the name of its getter (%s), so Java code, "
          + "the generated provider's, cannot call it. %s"),
  /** A member type that was never resolved (still missing in the last round). */
  UNRESOLVED_TYPE("UnresolvedType",
      "@Provides %s has type %s, which could not be resolved; check imports and the classpath"),
  /** A dtype the member's Java type cannot be converted to. */
  DTYPE_MISMATCH("DTypeMismatch",
      "@Provides '%s' has type %s, which cannot be stored as dtype %s; allowed: %s"),
  /** An encoded-image member that is not a {@code byte[]}, or whose shape, layout or dtype no image decodes to. */
  ENCODED_IMAGE("EncodedImage",
      "@Provides '%s' is an encoded image (%s): %s"),
  /** Two members provide the same name. */
  DUPLICATE_NAME("DuplicateName",
      "the name '%s' is provided by both %s and %s; names must be unique across data and labels"),
  /** A provided name that cannot serve as a binding name. */
  INVALID_NAME("InvalidName",
      "@Provides name '%s' is not usable: %s. Names are free text without whitespace or control characters"),
  /** Two members whose generated accessors (or name constants) would collide. */
  ACCESSOR_CLASH("AccessorClash",
      "@Provides member %s would generate accessor %s() and constant %s, which %s; rename the member"),
  /** No data (non-label) member. */
  NO_DATA("NoData",
      "@DataProvider type %s has no data: at least one @Provides member must have label = false"),
  /** A member that generated code cannot read. */
  UNREADABLE("Unreadable",
      "@Provides member %s cannot be read by generated code: %s"),
  /** A static member. */
  STATIC_MEMBER("StaticMember",
      "@Provides member %s is static; a sample's tensors must be instance members"),
  /** A getter-style member that takes parameters or returns nothing. */
  NOT_A_GETTER("NotAGetter",
      "@Provides method %s must take no parameters and return a value, like a getter"),
  /** More than one {@code VARIABLE} axis in one member's shape. */
  MULTIPLE_VARIABLE_AXES("MultipleVariableAxes",
      "@Provides '%s' has shape %s with VARIABLE axes %s; a sample has one length, one mask and one padding rule "
          + "per member, so only one axis can vary. Fix the other axes, or split the member"),
  /** A {@code VARIABLE} axis in a flat (rank-1) array of a higher-rank shape. */
  VARIABLE_FLAT("VariableFlat",
      "@Provides '%s' is a flat %s for shape %s; a flat array cannot say where the variable axis ends. Use a "
          + "rank-%d array (%s)"),
  /** {@code maxLength} on a member without a variable axis. */
  MAX_LENGTH_WITHOUT_VARIABLE("MaxLengthWithoutVariable",
      "@Provides '%s' declares maxLength = %d but its shape %s has no VARIABLE axis; drop maxLength, or mark the "
          + "axis that varies with VARIABLE"),
  /** A negative {@code maxLength}. */
  NEGATIVE_MAX_LENGTH("NegativeMaxLength",
      "@Provides '%s' declares maxLength = %d; it must be > 0, or 0 for no bound"),
  /** {@code tooLong} set without a {@code maxLength} to be too long for. */
  TOO_LONG_WITHOUT_MAX_LENGTH("TooLongWithoutMaxLength",
      "@Provides '%s' sets tooLong = %s but no maxLength; a sample can only be too long for a bound"),
  /** {@code sameLengthAs} naming no member, or the member itself. */
  SAME_LENGTH_UNKNOWN("SameLengthUnknown",
      "@Provides '%s' has sameLengthAs = \"%s\", %s; name another @Provides member by its property name: %s"),
  /** {@code sameLengthAs} between members that cannot share a length. */
  SAME_LENGTH_MISMATCH("SameLengthMismatch",
      "@Provides '%s' has sameLengthAs = \"%s\", but %s"),
  /** A generated type whose name is already taken. */
  GENERATED_NAME_CLASH("GeneratedNameClash",
      "the generated type %s would clash with the existing type %s; rename one of them"),
  /** A {@code -Aminibatch.*} option with a bad value. */
  BAD_OPTION("BadOption", "option -A%s=%s is not valid: %s"),
  /** The processor failed; never the user's fault. */
  INTERNAL_ERROR("InternalError",
      "the minibatch processor failed on %s; please report this with the stack trace below.%n%s");

  /**
   * The variable parts of messages: why a name clashes, what is wrong with a shared length, what
   * kind of element a member is. Kept here with the messages they complete, so every word a user
   * reads comes from this file.
   */
  enum Detail {
    /** {@link #NOT_A_CLASS}: the kind; the argument is the element kind's name in lower case. */
    KIND_AN("an %s"),
    /** {@link #NOT_A_CLASS}: an annotation type. */
    KIND_ANNOTATION("an annotation type"),
    /** {@link #NOT_A_CLASS}: abstract. */
    KIND_ABSTRACT("abstract"),
    /** {@link #ACCESSOR_CLASH}: another member's accessor or constant; the argument describes it. */
    GENERATED_BY_MEMBER("member %s generates too"),
    /** {@link #ACCESSOR_CLASH}: an accessor every object has ({@code getClass()}, {@code hashCode()}). */
    EVERY_OBJECT_HAS("every object already has"),
    /** {@link #GENERATED_NAME_CLASH}: a type of the sources; the argument is its name. */
    DECLARED_IN_SOURCES("%s declared in the sources"),
    /** {@link #GENERATED_NAME_CLASH}: generated for another sample; the argument is its name. */
    GENERATED_FOR_ANOTHER("%s generated for another @DataProvider type"),
    /** {@link #SAME_LENGTH_UNKNOWN}: the target is no member. */
    NOT_A_MEMBER("which is not a @Provides member of this type"),
    /** {@link #SAME_LENGTH_UNKNOWN}: the target is the member itself. */
    ITSELF("which is this member itself"),
    /** {@link #SAME_LENGTH_MISMATCH}: the follower has no variable axis; the argument is its shape. */
    OWN_AXIS_FIXED("its own shape %s has no VARIABLE axis to share"),
    /** {@link #SAME_LENGTH_MISMATCH}: the target has no variable axis; target, its shape. */
    TARGET_AXIS_FIXED("'%s' has shape %s with no VARIABLE axis (a length can only be shared between variable axes)"),
    /** {@link #SAME_LENGTH_MISMATCH}: the target follows another; target, the one it follows. */
    TARGET_FOLLOWS("'%s' itself follows '%s'; name that member instead"),
    /** {@link #SAME_LENGTH_MISMATCH}: the follower declares its own bound; the target. */
    BOUND_ON_FOLLOWER("it also declares maxLength or tooLong; a shared length has one bound, declared on '%s'"),
    /** {@link #INVALID_NAME}: blank. */
    NAME_BLANK("it is blank"),
    /** {@link #INVALID_NAME}: whitespace at an index. */
    NAME_WHITESPACE("it contains whitespace at index %d"),
    /** {@link #INVALID_NAME}: a control character at an index. */
    NAME_CONTROL("it contains a control character at index %d"),
    /** A member named by its Java element: the kind ("record component", "method", "field"), the name. */
    MEMBER("%s '%s'"),
    /** A member whose provided name differs from its Java name: the member, the provided name. */
    MEMBER_PROVIDED_AS("%s (provided as '%s')"),
    /** {@link #UNSUPPORTED_TYPE}'s ending when no advice fits. */
    HINT_NONE(""),
    /** {@link #UNSUPPORTED_TYPE}: a wrapper such as {@code Float}; the argument is the primitive. */
    HINT_BOXED(". Use the primitive %s: a sample's values cannot be null"),
    /** {@link #UNSUPPORTED_TYPE}: a label of strings, class names. */
    HINT_CLASS_NAMES(". A class label is an int class index: number the class names once (as torchvision's "
        + "class_to_idx does: the sorted names get 0, 1, 2, ...), keep that Map<String, Integer>, and provide "
        + "the index as int (int[] for several labels)"),
    /** {@link #UNSUPPORTED_TYPE}: a data member of strings. */
    HINT_TEXT(". Strings go in as int indices: map each to its index in a vocabulary and provide int, or int[] "
        + "for a sequence"),
    /** {@link #UNSUPPORTED_TYPE}: an enum. */
    HINT_ENUM(". Provide the constant's index as int (e.g. its ordinal()), or a one-hot float[]"),
    /** {@link #UNSUPPORTED_TYPE}: a List (or other collection); the arguments: the array, in Kotlin. */
    HINT_COLLECTION(". A collection is not copied: use the array %s (%s in Kotlin), with VARIABLE on the axis "
        + "whose length varies from sample to sample"),
    /** {@link #UNSUPPORTED_TYPE}: a collection whose elements have no array form. */
    HINT_COLLECTION_OTHER(". A collection is not copied: use a primitive array, with VARIABLE on the axis whose "
        + "length varies from sample to sample"),
    /** {@link #UNSUPPORTED_TYPE}: a label of another class (a sealed class's cases, say). */
    HINT_CLASS_LABEL(". A label that is one of a fixed set of cases (the objects or subclasses of a sealed class, "
        + "say) is provided as an int class index: number the cases once (a `when` over them) and provide that int"),
    /** {@link #VALUE_CLASS}: a UByteArray. */
    VALUE_UBYTE_ARRAY("Declare it ByteArray with dtype = DType.UINT8: asByteArray() gives the same bytes"),
    /** {@link #VALUE_CLASS}: a UByte. */
    VALUE_UBYTE("Declare it Byte with dtype = DType.UINT8: toByte() keeps the bits"),
    /** {@link #VALUE_CLASS}: a UShortArray. */
    VALUE_USHORT_ARRAY("Declare it CharArray, stored as UINT16: CharArray(size) { Char(values[it]) } keeps every value"),
    /** {@link #VALUE_CLASS}: a UShort. */
    VALUE_USHORT("Declare it Char, stored as UINT16: Char(value) keeps the value"),
    /** {@link #VALUE_CLASS}: a UIntArray. */
    VALUE_UINT_ARRAY("Declare it LongArray: LongArray(size) { values[it].toLong() } keeps every value"),
    /** {@link #VALUE_CLASS}: a UInt. */
    VALUE_UINT("Declare it Long: toLong() keeps the value"),
    /** {@link #VALUE_CLASS}: a ULongArray. */
    VALUE_ULONG_ARRAY("Declare it LongArray (asLongArray()) if every value is below 2^63, or DoubleArray"),
    /** {@link #VALUE_CLASS}: a ULong. */
    VALUE_ULONG("Declare it Long (toLong()) if the value is below 2^63, or Double"),
    /** {@link #VALUE_CLASS}: a value class of the application's; the argument is the stored Java type. */
    VALUE_OTHER("Provide the value it wraps instead (stored as %s), through a property of that value's type "
        + "annotated @get:Provides");

    private final String template;

    Detail(String template) {
      this.template = template;
    }

    /** The text with {@code args}. */
    String format(Object... args) {
      return String.format(Locale.ROOT, template, args);
    }
  }

  private final String id;
  private final String template;

  Message(String id, String template) {
    this.id = id;
    this.template = template;
  }

  /** The stable ID without its namespace, e.g. {@code ShapeRank}. */
  String id() {
    return id;
  }

  /** The tag that starts the printed message, e.g. {@code [minibatch/ShapeRank]}. */
  String tag() {
    return "[minibatch/" + id + "]";
  }

  /** The printed message: the tag, a space, the formatted text. */
  String format(Object... args) {
    return tag() + " " + String.format(Locale.ROOT, template, args);
  }
}
