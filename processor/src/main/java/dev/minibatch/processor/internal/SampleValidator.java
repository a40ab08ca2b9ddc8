package dev.minibatch.processor.internal;

import com.palantir.javapoet.ClassName;
import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.SampleSchema;
import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.Position;
import dev.minibatch.processor.internal.model.SourceMember;
import dev.minibatch.processor.internal.model.SourceType;
import dev.minibatch.processor.internal.model.TypeRef;
import dev.minibatch.shape.Shape;
import dev.minibatch.shape.ShapeCheck;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Checks one {@code @DataProvider} type and every {@code @Provides} member of it, and returns all
 * problems in one report. Never throws for bad input and never generates anything.
 */
final class SampleValidator {
  /** Accessor names the batch base type already uses. */
  private static final Set<String> RESERVED_ACCESSORS = Set.of("getClass");

  /** Qualified names of the types declared in this compilation's sources. */
  private final Set<String> declaredTypes;

  SampleValidator(Set<String> declaredTypes) {
    this.declaredTypes = declaredTypes;
  }

  /** True if some member's type is not resolved yet (it may be generated in a later round). */
  boolean hasUnresolvedTypes(SourceType type) {
    return Members.of(type).stream().anyMatch(m -> FieldType.of(m.type()).unresolved());
  }

  ValidationReport validate(SourceType type, Set<String> generatedSoFar) {
    ValidationReport.Builder report = ValidationReport.about(type);
    AnnotationData dp = java.util.Objects.requireNonNull(type.dataProvider());
    checkType(type, dp, report);
    checkBatchSize(type, dp, report);
    checkGeneratedNames(type, dp, generatedSoFar, report);

    List<Member> found = Members.of(type);
    Map<String, Member> byName = new HashMap<>();
    Map<String, Member> byAccessor = new HashMap<>();
    Map<String, Member> byConstant = new HashMap<>();
    boolean anyData = false;
    for (Member m : found) {
      checkMember(m, report);
      boolean label = Annotations.booleanValue(m.annotation(), "label");
      anyData |= !label;
      String name = providedName(m);
      Member other = byName.putIfAbsent(name, m);
      if (other != null) {
        report.error(Annotations.at(m.annotation(), "name"), Message.DUPLICATE_NAME,
            name, describe(other), describe(m));
      }
      String accessor = Members.accessorOf(m.property());
      String constant = Members.constantOf(m.property());
      if (variableAxis(m) >= 0) {
        // The mask and lengths accessors of a variable member take these names.
        for (String extra : List.of(accessor + "Mask", accessor + "Lengths")) {
          Member e = byAccessor.putIfAbsent(extra, m);
          if (e != null) {
            report.error(m.annotation().position(), Message.ACCESSOR_CLASH, describe(m), extra, constant,
                Message.Detail.GENERATED_BY_MEMBER.format(describe(e)));
          }
        }
      }
      Member a = byAccessor.putIfAbsent(accessor, m);
      Member c = byConstant.putIfAbsent(constant, m);
      if (a != null || c != null) {
        Member first = a != null ? a : c;
        report.error(m.annotation().position(), Message.ACCESSOR_CLASH,
            describe(m), accessor, constant, Message.Detail.GENERATED_BY_MEMBER.format(describe(first)));
      } else if (RESERVED_ACCESSORS.contains(accessor)) {
        report.error(m.annotation().position(), Message.ACCESSOR_CLASH,
            describe(m), accessor, constant, Message.Detail.EVERY_OBJECT_HAS.format());
      }
    }
    if (!anyData) {
      report.error(dp.position(), Message.NO_DATA, type.qualifiedName());
    }
    checkSameLengths(found, report);
    return report.build();
  }

  /**
   * {@code sameLengthAs}: it names another member, both have a variable axis, the named member
   * follows no one (it is its group's root), and the follower leaves the bound to the root.
   */
  private void checkSameLengths(List<Member> found, ValidationReport.Builder report) {
    Map<String, Member> byProperty = new HashMap<>();
    for (Member m : found) {
      byProperty.putIfAbsent(m.property(), m);
    }
    for (Member m : found) {
      AnnotationData a = m.annotation();
      String target = Annotations.stringValue(a, "sameLengthAs");
      if (target.isEmpty()) {
        continue;
      }
      Position v = Annotations.at(a, "sameLengthAs");
      String name = providedName(m);
      Member root = byProperty.get(target);
      if (root == null || root == m) {
        report.error(v, Message.SAME_LENGTH_UNKNOWN, name, target,
            (root == null ? Message.Detail.NOT_A_MEMBER : Message.Detail.ITSELF).format(),
            found.stream().filter(o -> o != m).map(Member::property).collect(Collectors.joining(", ")));
        continue;
      }
      String problem = null;
      if (variableAxis(m) < 0) {
        problem = Message.Detail.OWN_AXIS_FIXED.format(shapeText(m));
      } else if (variableAxis(root) < 0) {
        problem = Message.Detail.TARGET_AXIS_FIXED.format(target, shapeText(root));
      } else if (!Annotations.stringValue(root.annotation(), "sameLengthAs").isEmpty()) {
        problem = Message.Detail.TARGET_FOLLOWS.format(target, Annotations.stringValue(root.annotation(),
            "sameLengthAs"));
      } else if (Annotations.intValue(a, "maxLength") != 0
          || Annotations.explicit(a, "tooLong") != null) {
        problem = Message.Detail.BOUND_ON_FOLLOWER.format(target);
      }
      if (problem != null) {
        report.error(v, Message.SAME_LENGTH_MISMATCH, name, target, problem);
      }
    }
  }

  /** The member's VARIABLE axis (of its declared shape), or -1. */
  private int variableAxis(Member m) {
    int[] shape = Annotations.intArray(m.annotation(), "shape");
    for (int i = 0; i < shape.length; i++) {
      if (shape[i] == Shape.VARIABLE) {
        return i;
      }
    }
    return -1;
  }

  private String shapeText(Member m) {
    return ShapeCheck.format(Arrays.stream(Annotations.intArray(m.annotation(), "shape")).asLongStream()
        .toArray());
  }

  /** What to declare instead of a value class: the unsigned types' signed or wider forms, or what it wraps. */
  private static String valueClassAdvice(SourceMember.Kotlin kotlin, TypeRef stored) {
    Message.Detail d = switch (kotlin.classifier()) {
      case "kotlin.UByteArray" -> Message.Detail.VALUE_UBYTE_ARRAY;
      case "kotlin.UByte" -> Message.Detail.VALUE_UBYTE;
      case "kotlin.UShortArray" -> Message.Detail.VALUE_USHORT_ARRAY;
      case "kotlin.UShort" -> Message.Detail.VALUE_USHORT;
      case "kotlin.UIntArray" -> Message.Detail.VALUE_UINT_ARRAY;
      case "kotlin.UInt" -> Message.Detail.VALUE_UINT;
      case "kotlin.ULongArray" -> Message.Detail.VALUE_ULONG_ARRAY;
      case "kotlin.ULong" -> Message.Detail.VALUE_ULONG;
      default -> Message.Detail.VALUE_OTHER;
    };
    return d == Message.Detail.VALUE_OTHER ? d.format(stored.text()) : d.format();
  }

  private void checkType(SourceType type, AnnotationData dp, ValidationReport.Builder report) {
    SourceType.Kind kind = type.kind();
    Position at = dp.position();
    if (kind == SourceType.Kind.INTERFACE || kind == SourceType.Kind.ENUM || kind == SourceType.Kind.ANNOTATION) {
      report.error(at, Message.NOT_A_CLASS, type.qualifiedName(),
          kind == SourceType.Kind.ANNOTATION ? Message.Detail.KIND_ANNOTATION.format()
              : Message.Detail.KIND_AN.format(kind.name().toLowerCase(java.util.Locale.ROOT)));
    } else if (type.isAbstract()) {
      report.error(at, Message.NOT_A_CLASS, type.qualifiedName(), Message.Detail.KIND_ABSTRACT.format());
    }
    if (type.isInnerOrLocal()) {
      report.error(at, Message.INNER_CLASS, type.qualifiedName());
    }
    for (SourceType e = type; e != null; e = e.enclosingType()) {
      if (e.isPrivate()) {
        report.error(at, Message.PRIVATE_CLASS, type.qualifiedName(),
            type.packageName(), e == type ? "it" : e.qualifiedName());
        break;
      }
    }
  }

  private void checkBatchSize(SourceType type, AnnotationData dp, ValidationReport.Builder report) {
    int batchSize = Annotations.intValue(dp, "batchSize");
    if (batchSize < 0) {
      report.error(Annotations.at(dp, "batchSize"), Message.NEGATIVE_BATCH_SIZE, batchSize);
    }
  }

  private void checkGeneratedNames(SourceType type, AnnotationData dp, Set<String> generatedSoFar,
      ValidationReport.Builder report) {
    for (ClassName n : List.of(GeneratedNames.provider(type), GeneratedNames.batch(type))) {
      String q = n.canonicalName();
      if (declaredTypes.contains(q)) {
        report.error(dp.position(), Message.GENERATED_NAME_CLASH, q, Message.Detail.DECLARED_IN_SOURCES.format(q));
      } else if (generatedSoFar.contains(q)) {
        report.error(dp.position(), Message.GENERATED_NAME_CLASH, q, Message.Detail.GENERATED_FOR_ANOTHER.format(q));
      }
    }
  }

  private void checkMember(Member m, ValidationReport.Builder report) {
    SourceMember e = m.element();
    AnnotationData a = m.annotation();
    Position at = a.position();
    SourceMember.Kotlin kotlin = e.kotlin();
    if (kotlin != null && kotlin.mangledGetter() != null) {
      // Java sees the underlying type (byte[] for a UByteArray) but can call no getter of it.
      report.error(at, Message.VALUE_CLASS, describe(m), kotlin.type(), kotlin.mangledGetter(),
          valueClassAdvice(kotlin, m.type()));
      return;
    }
    if (e.isStatic()) {
      report.error(at, Message.STATIC_MEMBER, describe(m));
      return;
    }
    if (e.kind() == SourceMember.Kind.METHOD && (e.parameters() != 0 || e.type().kind() == TypeRef.Kind.VOID)) {
      report.error(at, Message.NOT_A_GETTER, describe(m));
      return;
    }
    if (m.read() == null) {
      report.error(at, Message.UNREADABLE, describe(m), m.unreadable());
    }
    String name = providedName(m);
    String nameProblem = nameProblem(name);
    if (nameProblem != null) {
      report.error(Annotations.at(a, "name"), Message.INVALID_NAME, name, nameProblem);
    }

    int[] shape = Annotations.intArray(a, "shape");
    Position shapeValue = Annotations.at(a, "shape");
    List<Integer> variable = new java.util.ArrayList<>();
    for (int i = 0; i < shape.length; i++) {
      if (shape[i] == Shape.VARIABLE) {
        variable.add(i);
      }
    }
    if (variable.size() > 1) {
      report.error(shapeValue, Message.MULTIPLE_VARIABLE_AXES, name,
          ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray()), variable);
    } else {
      String dimProblem = ShapeCheck.checkDims(shape);
      if (dimProblem != null) {
        report.error(shapeValue, Message.SHAPE_DIM, name, dimProblem);
      }
    }
    checkMaxLength(m, name, shape, !variable.isEmpty(), report);
    String layout = Annotations.stringValue(a, "layout");
    if (!layout.isEmpty()) {
      String layoutProblem = ShapeCheck.checkLayout(layout, shape.length);
      if (layoutProblem != null) {
        Position layoutValue = Annotations.at(a, "layout");
        if (layout.length() != shape.length + 1) {
          report.error(layoutValue, Message.LAYOUT_RANK, name,
              ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray()), layoutProblem);
        } else {
          report.error(layoutValue, Message.INVALID_LAYOUT, name, layoutProblem);
        }
      }
    }
    FieldType ft = FieldType.of(m.type());
    if (kotlin != null && kotlin.nullable()) {
      // Float? is a java.lang.Float to Java: the wrapper is the nullable type itself.
      boolean boxed = !ft.supported() && m.type().rank() == 0 && m.type().kind() == TypeRef.Kind.DECLARED
          && TypeHints.isWrapper(m.type().name());
      if (ft.supported() || boxed) {
        String type = kotlin.type();
        report.error(at, Message.NULLABLE_MEMBER, describe(m), type, type.substring(0, type.length() - 1));
        if (boxed) {
          return; // the wrapper is the nullable type itself: nothing else to say about it
        }
      }
    }
    if (!ft.supported()) {
      // About the Java type, so named by the Java member; the slot name only when it differs.
      String member = name.equals(m.element().name()) ? describe(m)
          : Message.Detail.MEMBER_PROVIDED_AS.format(describe(m), name);
      if (ft.unresolved()) {
        report.error(at, Message.UNRESOLVED_TYPE, member, m.type().text());
      } else {
        report.error(at, Message.UNSUPPORTED_TYPE, member, m.type().text(),
            TypeHints.of(m.type(), Annotations.booleanValue(a, "label")));
      }
      return;
    }
    String shapeText = ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray());
    switch (ft.storage()) {
      case SCALAR:
        if (shape.length > 0) {
          report.error(shapeValue, Message.SCALAR_SHAPE, name, m.type().text(), shapeText,
              ft.primitive(), shapeText);
        }
        break;
      case ARRAY:
        if (ft.rank() == 1 && shape.length > 1 && !variable.isEmpty()) {
          report.error(shapeValue, Message.VARIABLE_FLAT, name, m.type().text(),
              ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray()), shape.length,
              ProviderWriter.arrayOf(ft.primitive(), shape.length));
        } else if (shape.length == 0) {
          report.error(at, Message.MISSING_SHAPE, name, m.type().text(),
              ft.rank() == 1 ? "n" : String.join(", ", java.util.Collections.nCopies(ft.rank(), "n")));
        } else {
          String rankProblem = ShapeCheck.checkArrayRank(ft.rank(), shape.length);
          if (rankProblem != null) {
            report.error(shapeValue, Message.SHAPE_RANK, name, m.type().text(), shapeText, rankProblem);
          }
        }
        break;
      case INDARRAY:
        break;
    }
    DType dtype = DType.valueOf(Annotations.enumValue(a, "dtype"));
    SampleSchema.Encoding encoding = encodingOf(a);
    if (encoding.image()) {
      checkEncodedImage(m, name, ft, shape, layout, dtype, encoding, report);
      return;
    }
    if (dtype != DType.INFER && !ft.allowedDTypes().contains(dtype)) {
      report.error(Annotations.at(a, "dtype"), Message.DTYPE_MISMATCH, name, m.type().text(), dtype,
          ft.allowedDTypes().stream().map(Enum::name).collect(Collectors.joining(", ")));
    }
  }

  /** The member's {@code encoding}: RAW unless declared. */
  static SampleSchema.Encoding encodingOf(AnnotationData a) {
    return SampleSchema.Encoding.valueOf(Annotations.enumValue(a, "encoding"));
  }

  /**
   * An encoded image: the bytes in a {@code byte[]}, decoded to what the shape, layout and dtype
   * say, by the schema's one rule for image fields ({@link SampleSchema.Field}); an unset dtype is
   * UINT8, the decoder's pixels.
   */
  private void checkEncodedImage(Member m, String name, FieldType ft, int[] shape, String layout, DType dtype,
      SampleSchema.Encoding encoding, ValidationReport.Builder report) {
    AnnotationData a = m.annotation();
    if (ft.storage() != FieldType.Storage.ARRAY || ft.rank() != 1 || !"byte".equals(ft.primitive())) {
      report.error(a.position(), Message.ENCODED_IMAGE, name, encoding, "it holds the encoded bytes, so its type must"
          + " be byte[], not " + m.type().text());
      return;
    }
    if (Annotations.explicit(a, "stepPadding") != null) {
      report.error(Annotations.at(a, "stepPadding"), Message.ENCODED_IMAGE, name, encoding, "an image has no variable"
          + " axis to pad; drop stepPadding");
    }
    String effectiveLayout = layout.isEmpty() && shape.length == 3
        ? DataDesc.defaultLayout(shapeOf(shape).withBatch(1)) : layout;
    try {
      new SampleSchema.Field(name, Annotations.booleanValue(a, "label") ? dev.minibatch.Role.LABEL
          : dev.minibatch.Role.DATA, shapeOf(shape), dtype == DType.INFER ? DType.UINT8 : dtype,
          effectiveLayout.isEmpty() ? "N" + "C".repeat(shape.length) : effectiveLayout, 0, encoding);
    } catch (IllegalArgumentException e) {
      String problem = e.getMessage();
      // The schema names the field first; the diagnostic already does.
      String prefix = "field '" + name + "' of sample shape " + shapeOf(shape) + ": ";
      // Point at the attribute at fault: the dtype when no image decodes to it, else the shape.
      boolean dtypeAtFault = problem.contains("pixels, not") && Annotations.explicit(a, "dtype") != null;
      report.error(Annotations.at(a, dtypeAtFault ? "dtype" : "shape"), Message.ENCODED_IMAGE, name, encoding,
          problem.startsWith(prefix) ? problem.substring(prefix.length()) : problem);
    }
  }

  private void checkMaxLength(Member m, String name, int[] shape, boolean variable, ValidationReport.Builder report) {
    AnnotationData a = m.annotation();
    int maxLength = Annotations.intValue(a, "maxLength");
    Position v = Annotations.at(a, "maxLength");
    String shapeText = ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray());
    if (maxLength < 0) {
      report.error(v, Message.NEGATIVE_MAX_LENGTH, name, maxLength);
    } else if (maxLength > 0 && !variable) {
      report.error(v, Message.MAX_LENGTH_WITHOUT_VARIABLE, name, maxLength, shapeText);
    }
    Position tooLong = Annotations.explicit(a, "tooLong");
    if (tooLong != null && maxLength == 0) {
      report.error(tooLong, Message.TOO_LONG_WITHOUT_MAX_LENGTH, name,
          Annotations.enumValue(a, "tooLong"));
    }
  }

  /** The provided name: the annotation's, or the property's. */
  String providedName(Member m) {
    String explicit = Annotations.stringValue(m.annotation(), "name");
    return explicit.isEmpty() ? m.property() : explicit;
  }

  private static @Nullable String nameProblem(String name) {
    if (name.isBlank()) {
      return Message.Detail.NAME_BLANK.format();
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        return (Character.isWhitespace(c) ? Message.Detail.NAME_WHITESPACE : Message.Detail.NAME_CONTROL).format(i);
      }
    }
    return null;
  }

  private static String describe(Member m) {
    return Message.Detail.MEMBER.format(m.kind(), m.element().name());
  }

  /** Shapes as {@link Shape}, for the descriptor factory. */
  static Shape shapeOf(int[] dims) {
    return dims.length == 0 ? Shape.scalar() : Shape.of(dims);
  }
}
