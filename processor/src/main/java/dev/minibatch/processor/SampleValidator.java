package dev.minibatch.processor;

import com.palantir.javapoet.ClassName;
import dev.minibatch.DType;
import dev.minibatch.shape.Shape;
import dev.minibatch.shape.ShapeCheck;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.util.Elements;
import org.jspecify.annotations.Nullable;

/**
 * Checks one {@code @DataProvider} type and every {@code @Provides} member of it, and returns all
 * problems in one report. Never throws for bad input and never generates anything.
 */
final class SampleValidator {
  /** Accessor names the batch base type already uses. */
  private static final Set<String> RESERVED_ACCESSORS = Set.of("getClass");

  private final Elements elements;
  private final Members members;
  /** Qualified names of the types declared in this compilation's sources. */
  private final Set<String> declaredTypes;

  SampleValidator(Elements elements, Members members, Set<String> declaredTypes) {
    this.elements = elements;
    this.members = members;
    this.declaredTypes = declaredTypes;
  }

  /** True if some member's type is not resolved yet (it may be generated in a later round). */
  boolean hasUnresolvedTypes(TypeElement type) {
    return members.of(type).stream().anyMatch(m -> FieldType.of(m.type()).unresolved());
  }

  ValidationReport validate(TypeElement type, Set<String> generatedSoFar) {
    ValidationReport.Builder report = ValidationReport.about(type);
    AnnotationMirror dp = Annotations.find(type, Annotations.DATA_PROVIDER).orElseThrow();
    checkType(type, dp, report);
    checkBatchSize(type, dp, report);
    checkGeneratedNames(type, dp, generatedSoFar, report);

    List<Member> found = members.of(type);
    Map<String, Member> byName = new HashMap<>();
    Map<String, Member> byAccessor = new HashMap<>();
    Map<String, Member> byConstant = new HashMap<>();
    boolean anyData = false;
    for (Member m : found) {
      checkMember(m, report);
      boolean label = Annotations.booleanValue(elements, m.annotation(), "label");
      anyData |= !label;
      String name = providedName(m);
      Member other = byName.putIfAbsent(name, m);
      if (other != null) {
        AnnotationValue v = Annotations.explicit(m.annotation(), "name");
        report.error(m.element(), m.annotation(), v, Message.DUPLICATE_NAME,
            name, describe(other), describe(m));
      }
      String accessor = Members.accessorOf(m.property());
      String constant = Members.constantOf(m.property());
      if (variableAxis(m) >= 0) {
        // The mask and lengths accessors of a variable member take these names.
        for (String extra : List.of(accessor + "Mask", accessor + "Lengths")) {
          Member e = byAccessor.putIfAbsent(extra, m);
          if (e != null) {
            report.error(m.element(), m.annotation(), null, Message.ACCESSOR_CLASH, describe(m), extra, constant,
                Message.Detail.GENERATED_BY_MEMBER.format(describe(e)));
          }
        }
      }
      Member a = byAccessor.putIfAbsent(accessor, m);
      Member c = byConstant.putIfAbsent(constant, m);
      if (a != null || c != null) {
        Member first = a != null ? a : c;
        report.error(m.element(), m.annotation(), null, Message.ACCESSOR_CLASH,
            describe(m), accessor, constant, Message.Detail.GENERATED_BY_MEMBER.format(describe(first)));
      } else if (RESERVED_ACCESSORS.contains(accessor)) {
        report.error(m.element(), m.annotation(), null, Message.ACCESSOR_CLASH,
            describe(m), accessor, constant, Message.Detail.EVERY_OBJECT_HAS.format());
      }
    }
    if (!anyData) {
      report.error(type, dp, null, Message.NO_DATA, type.getQualifiedName());
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
      AnnotationMirror a = m.annotation();
      String target = Annotations.stringValue(elements, a, "sameLengthAs");
      if (target.isEmpty()) {
        continue;
      }
      AnnotationValue v = Annotations.explicit(a, "sameLengthAs");
      String name = providedName(m);
      Member root = byProperty.get(target);
      if (root == null || root == m) {
        report.error(m.element(), a, v, Message.SAME_LENGTH_UNKNOWN, name, target,
            (root == null ? Message.Detail.NOT_A_MEMBER : Message.Detail.ITSELF).format(),
            found.stream().filter(o -> o != m).map(Member::property).collect(Collectors.joining(", ")));
        continue;
      }
      String problem = null;
      if (variableAxis(m) < 0) {
        problem = Message.Detail.OWN_AXIS_FIXED.format(shapeText(m));
      } else if (variableAxis(root) < 0) {
        problem = Message.Detail.TARGET_AXIS_FIXED.format(target, shapeText(root));
      } else if (!Annotations.stringValue(elements, root.annotation(), "sameLengthAs").isEmpty()) {
        problem = Message.Detail.TARGET_FOLLOWS.format(target, Annotations.stringValue(elements, root.annotation(),
            "sameLengthAs"));
      } else if (Annotations.intValue(elements, a, "maxLength") != 0
          || Annotations.explicit(a, "tooLong") != null) {
        problem = Message.Detail.BOUND_ON_FOLLOWER.format(target);
      }
      if (problem != null) {
        report.error(m.element(), a, v, Message.SAME_LENGTH_MISMATCH, name, target, problem);
      }
    }
  }

  /** The member's VARIABLE axis (of its declared shape), or -1. */
  private int variableAxis(Member m) {
    int[] shape = Annotations.intArray(elements, m.annotation(), "shape");
    for (int i = 0; i < shape.length; i++) {
      if (shape[i] == Shape.VARIABLE) {
        return i;
      }
    }
    return -1;
  }

  private String shapeText(Member m) {
    return ShapeCheck.format(Arrays.stream(Annotations.intArray(elements, m.annotation(), "shape")).asLongStream()
        .toArray());
  }

  private void checkType(TypeElement type, AnnotationMirror dp, ValidationReport.Builder report) {
    ElementKind kind = type.getKind();
    if (kind == ElementKind.INTERFACE || kind == ElementKind.ENUM || kind == ElementKind.ANNOTATION_TYPE) {
      report.error(type, dp, null, Message.NOT_A_CLASS, type.getQualifiedName(),
          kind == ElementKind.ANNOTATION_TYPE ? Message.Detail.KIND_ANNOTATION.format()
              : Message.Detail.KIND_AN.format(kind.name().toLowerCase(java.util.Locale.ROOT)));
    } else if (type.getModifiers().contains(Modifier.ABSTRACT)) {
      report.error(type, dp, null, Message.NOT_A_CLASS, type.getQualifiedName(), Message.Detail.KIND_ABSTRACT.format());
    }
    Element enclosing = type.getEnclosingElement();
    if (enclosing.getKind() != ElementKind.PACKAGE
        && (!type.getModifiers().contains(Modifier.STATIC) && kind == ElementKind.CLASS
            || !(enclosing instanceof TypeElement))) {
      report.error(type, dp, null, Message.INNER_CLASS, type.getQualifiedName());
    }
    for (Element e = type; e instanceof TypeElement; e = e.getEnclosingElement()) {
      if (e.getModifiers().contains(Modifier.PRIVATE)) {
        report.error(type, dp, null, Message.PRIVATE_CLASS, type.getQualifiedName(),
            GeneratedNames.packageName(type), e == type ? "it" : ((TypeElement) e).getQualifiedName());
        break;
      }
    }
  }

  private void checkBatchSize(TypeElement type, AnnotationMirror dp, ValidationReport.Builder report) {
    int batchSize = Annotations.intValue(elements, dp, "batchSize");
    if (batchSize < 0) {
      report.error(type, dp, Annotations.explicit(dp, "batchSize"), Message.NEGATIVE_BATCH_SIZE, batchSize);
    }
  }

  private void checkGeneratedNames(TypeElement type, AnnotationMirror dp, Set<String> generatedSoFar,
      ValidationReport.Builder report) {
    for (ClassName n : List.of(GeneratedNames.provider(type), GeneratedNames.batch(type))) {
      String q = n.canonicalName();
      if (declaredTypes.contains(q)) {
        report.error(type, dp, null, Message.GENERATED_NAME_CLASH, q, Message.Detail.DECLARED_IN_SOURCES.format(q));
      } else if (generatedSoFar.contains(q)) {
        report.error(type, dp, null, Message.GENERATED_NAME_CLASH, q, Message.Detail.GENERATED_FOR_ANOTHER.format(q));
      }
    }
  }

  private void checkMember(Member m, ValidationReport.Builder report) {
    Element e = m.element();
    AnnotationMirror a = m.annotation();
    if (e.getModifiers().contains(Modifier.STATIC)) {
      report.error(e, a, null, Message.STATIC_MEMBER, describe(m));
      return;
    }
    if (e instanceof ExecutableElement method
        && (!method.getParameters().isEmpty() || method.getReturnType().getKind() == TypeKind.VOID)) {
      report.error(e, a, null, Message.NOT_A_GETTER, describe(m));
      return;
    }
    if (m.read() == null) {
      report.error(e, a, null, Message.UNREADABLE, describe(m), m.unreadable());
    }
    String name = providedName(m);
    String nameProblem = nameProblem(name);
    if (nameProblem != null) {
      report.error(e, a, Annotations.explicit(a, "name"), Message.INVALID_NAME, name, nameProblem);
    }

    int[] shape = Annotations.intArray(elements, a, "shape");
    AnnotationValue shapeValue = Annotations.explicit(a, "shape");
    List<Integer> variable = new java.util.ArrayList<>();
    for (int i = 0; i < shape.length; i++) {
      if (shape[i] == Shape.VARIABLE) {
        variable.add(i);
      }
    }
    if (variable.size() > 1) {
      report.error(e, a, shapeValue, Message.MULTIPLE_VARIABLE_AXES, name,
          ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray()), variable);
    } else {
      String dimProblem = ShapeCheck.checkDims(shape);
      if (dimProblem != null) {
        report.error(e, a, shapeValue, Message.SHAPE_DIM, name, dimProblem);
      }
    }
    checkMaxLength(m, name, shape, !variable.isEmpty(), report);
    String layout = Annotations.stringValue(elements, a, "layout");
    if (!layout.isEmpty()) {
      String layoutProblem = ShapeCheck.checkLayout(layout, shape.length);
      if (layoutProblem != null) {
        AnnotationValue layoutValue = Annotations.explicit(a, "layout");
        if (layout.length() != shape.length + 1) {
          report.error(e, a, layoutValue, Message.LAYOUT_RANK, name,
              ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray()), layoutProblem);
        } else {
          report.error(e, a, layoutValue, Message.INVALID_LAYOUT, name, layoutProblem);
        }
      }
    }
    FieldType ft = FieldType.of(m.type());
    if (!ft.supported()) {
      // About the Java type, so named by the Java member; the slot name only when it differs.
      String member = name.equals(m.element().getSimpleName().toString()) ? describe(m)
          : Message.Detail.MEMBER_PROVIDED_AS.format(describe(m), name);
      if (ft.unresolved()) {
        report.error(e, a, null, Message.UNRESOLVED_TYPE, member, m.type());
      } else {
        report.error(e, a, null, Message.UNSUPPORTED_TYPE, member, m.type(),
            TypeHints.of(m.type(), Annotations.booleanValue(elements, a, "label")));
      }
      return;
    }
    String shapeText = ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray());
    switch (ft.storage()) {
      case SCALAR:
        if (shape.length > 0) {
          report.error(e, a, shapeValue, Message.SCALAR_SHAPE, name, m.type(), shapeText,
              ft.primitive(), shapeText);
        }
        break;
      case ARRAY:
        if (ft.rank() == 1 && shape.length > 1 && !variable.isEmpty()) {
          report.error(e, a, shapeValue, Message.VARIABLE_FLAT, name, m.type(),
              ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray()), shape.length,
              ProviderWriter.arrayOf(ft.primitive(), shape.length));
        } else if (shape.length == 0) {
          report.error(e, a, null, Message.MISSING_SHAPE, name, m.type(),
              ft.rank() == 1 ? "n" : String.join(", ", java.util.Collections.nCopies(ft.rank(), "n")));
        } else {
          String rankProblem = ShapeCheck.checkArrayRank(ft.rank(), shape.length);
          if (rankProblem != null) {
            report.error(e, a, shapeValue, Message.SHAPE_RANK, name, m.type(), shapeText, rankProblem);
          }
        }
        break;
      case INDARRAY:
        break;
    }
    DType dtype = DType.valueOf(Annotations.enumValue(elements, a, "dtype"));
    if (dtype != DType.INFER && !ft.allowedDTypes().contains(dtype)) {
      report.error(e, a, Annotations.explicit(a, "dtype"), Message.DTYPE_MISMATCH, name, m.type(), dtype,
          ft.allowedDTypes().stream().map(Enum::name).collect(Collectors.joining(", ")));
    }
  }

  private void checkMaxLength(Member m, String name, int[] shape, boolean variable, ValidationReport.Builder report) {
    AnnotationMirror a = m.annotation();
    int maxLength = Annotations.intValue(elements, a, "maxLength");
    AnnotationValue v = Annotations.explicit(a, "maxLength");
    String shapeText = ShapeCheck.format(Arrays.stream(shape).asLongStream().toArray());
    if (maxLength < 0) {
      report.error(m.element(), a, v, Message.NEGATIVE_MAX_LENGTH, name, maxLength);
    } else if (maxLength > 0 && !variable) {
      report.error(m.element(), a, v, Message.MAX_LENGTH_WITHOUT_VARIABLE, name, maxLength, shapeText);
    }
    AnnotationValue tooLong = Annotations.explicit(a, "tooLong");
    if (tooLong != null && maxLength == 0) {
      report.error(m.element(), a, tooLong, Message.TOO_LONG_WITHOUT_MAX_LENGTH, name,
          Annotations.enumValue(elements, a, "tooLong"));
    }
  }

  /** The provided name: the annotation's, or the property's. */
  String providedName(Member m) {
    String explicit = Annotations.stringValue(elements, m.annotation(), "name");
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
    String kind = m.element().getEnclosingElement().getKind() == ElementKind.RECORD
        && m.element().getKind() == ElementKind.FIELD ? "record component" : switch (m.element().getKind()) {
      case RECORD_COMPONENT -> "record component";
      case METHOD -> "method";
      default -> "field";
    };
    return Message.Detail.MEMBER.format(kind, m.element().getSimpleName());
  }

  /** Shapes as {@link Shape}, for the descriptor factory. */
  static Shape shapeOf(int[] dims) {
    return dims.length == 0 ? Shape.scalar() : Shape.of(dims);
  }
}
