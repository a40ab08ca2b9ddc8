package dev.minibatch.processor;

import dev.minibatch.processor.internal.model.SourceMember;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;
import kotlin.metadata.Attributes;
import kotlin.metadata.KmClass;
import kotlin.metadata.KmClassifier;
import kotlin.metadata.KmFunction;
import kotlin.metadata.KmProperty;
import kotlin.metadata.KmType;
import kotlin.metadata.KmTypeParameter;
import kotlin.metadata.KmTypeProjection;
import kotlin.metadata.jvm.JvmExtensionsKt;
import kotlin.metadata.jvm.JvmFieldSignature;
import kotlin.metadata.jvm.JvmMetadataUtil;
import kotlin.metadata.jvm.JvmMethodSignature;
import kotlin.metadata.jvm.KotlinClassMetadata;
import org.jspecify.annotations.Nullable;

/**
 * What a Kotlin class declared, read from the {@code @kotlin.Metadata} that kapt's stub of it keeps:
 * for each backing field and each getter or function in the stub, the property or function behind
 * it ({@link SourceMember.Kotlin}). The stub alone loses it: a {@code FloatArray?} is a {@code
 * float[]}, and a property of a value-class type ({@code UByteArray}) is a field of the underlying
 * type whose getter, mangled ({@code getPx-TcUX1vc}), the stub leaves out.
 *
 * <p>Types are written as the KSP front end writes them from KSP's symbols, so both report the same
 * text.
 */
final class KotlinMetadata {
  private static final String METADATA = "kotlin.Metadata";
  /** {@code dev.minibatch.Provides} as the metadata names classes. */
  private static final String PROVIDES = "dev/minibatch/Provides";

  /** By backing field name. */
  private final Map<String, SourceMember.Kotlin> fields = new HashMap<>();
  /** By JVM method name: property getters and functions. */
  private final Map<String, SourceMember.Kotlin> methods = new HashMap<>();
  /** Annotated getters that the stub leaves out, in declaration order. */
  private final List<DroppedGetter> droppedGetters = new ArrayList<>();

  /**
   * A getter of a value-class property annotated {@code @get:Provides}: Kotlin mangles its name
   * ({@code getY-pVg5ArA}), and kapt's stub leaves such getters out with their annotations, which
   * the metadata still lists.
   *
   * @param name the getter's JVM name
   * @param descriptor its JVM descriptor ({@code ()I})
   * @param field the property's backing field, null when it has none
   * @param kotlin what the property declared
   */
  record DroppedGetter(String name, String descriptor, @Nullable String field, SourceMember.Kotlin kotlin) {}

  private KotlinMetadata() {}

  /** The metadata of {@code type}; an empty one for a Java class or metadata this reader cannot read. */
  static KotlinMetadata of(TypeElement type, Elements elements) {
    KotlinMetadata out = new KotlinMetadata();
    KmClass kmClass = read(type, elements);
    if (kmClass == null) {
      return out;
    }
    List<KmTypeParameter> parameters = kmClass.getTypeParameters();
    for (KmProperty p : kmClass.getProperties()) {
      JvmMethodSignature getter = JvmExtensionsKt.getGetterSignature(p);
      String mangled = getter != null && getter.getName().indexOf('-') >= 0 ? getter.getName() : null;
      SourceMember.Kotlin k = describe(p.getReturnType(), parameters, mangled);
      JvmFieldSignature field = JvmExtensionsKt.getFieldSignature(p);
      if (field != null) {
        out.fields.put(field.getName(), k);
      }
      if (getter != null) {
        out.methods.put(getter.getName(), k);
      }
      if (mangled != null && p.getGetter().getAnnotations().stream()
          .anyMatch(a -> a.getClassName().equals(PROVIDES))) {
        out.droppedGetters.add(new DroppedGetter(mangled, getter.getDescriptor(),
            field == null ? null : field.getName(), k));
      }
    }
    for (KmFunction f : kmClass.getFunctions()) {
      JvmMethodSignature s = JvmExtensionsKt.getSignature(f);
      if (s != null) {
        List<KmTypeParameter> all = new ArrayList<>(parameters);
        all.addAll(f.getTypeParameters());
        out.methods.putIfAbsent(s.getName(), describe(f.getReturnType(), all,
            s.getName().indexOf('-') >= 0 ? s.getName() : null));
      }
    }
    return out;
  }

  /** The property whose backing field is {@code name}; null when none is known. */
  SourceMember.@Nullable Kotlin field(String name) {
    return fields.get(name);
  }

  /** The property whose getter, or the function, has the JVM name {@code name}; null when none is known. */
  SourceMember.@Nullable Kotlin method(String name) {
    return methods.get(name);
  }

  /** The {@code @get:Provides} getters of value-class properties, which kapt's stub leaves out. */
  List<DroppedGetter> droppedGetters() {
    return droppedGetters;
  }

  private static @Nullable KmClass read(TypeElement type, Elements elements) {
    for (AnnotationMirror a : type.getAnnotationMirrors()) {
      if (!((TypeElement) a.getAnnotationType().asElement()).getQualifiedName().contentEquals(METADATA)) {
        continue;
      }
      Map<String, Object> v = new HashMap<>();
      for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e
          : elements.getElementValuesWithDefaults(a).entrySet()) {
        v.put(e.getKey().getSimpleName().toString(), e.getValue().getValue());
      }
      try {
        kotlin.Metadata metadata = JvmMetadataUtil.Metadata((Integer) v.get("k"), ints(v.get("mv")),
            strings(v.get("d1")), strings(v.get("d2")), (String) v.get("xs"), (String) v.get("pn"),
            (Integer) v.get("xi"));
        return KotlinClassMetadata.readLenient(metadata) instanceof KotlinClassMetadata.Class c ? c.getKmClass()
            : null;
      } catch (IllegalArgumentException e) {
        return null; // metadata of a Kotlin version this reader does not know: the stub's view alone
      }
    }
    return null;
  }

  private static int[] ints(Object list) {
    List<?> values = (List<?>) list;
    int[] out = new int[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = (Integer) ((AnnotationValue) values.get(i)).getValue();
    }
    return out;
  }

  private static String[] strings(Object list) {
    List<?> values = (List<?>) list;
    String[] out = new String[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = (String) ((AnnotationValue) values.get(i)).getValue();
    }
    return out;
  }

  private static SourceMember.Kotlin describe(KmType type, List<KmTypeParameter> parameters,
      @Nullable String mangledGetter) {
    String classifier = type.getClassifier() instanceof KmClassifier.Class c ? c.getName().replace('/', '.') : "";
    return new SourceMember.Kotlin(text(type, parameters), classifier, Attributes.isNullable(type), mangledGetter);
  }

  /** {@code kotlin/collections/List<kotlin/FloatArray>?} as {@code List<FloatArray>?}. */
  static String text(KmType type, List<KmTypeParameter> parameters) {
    StringBuilder s = new StringBuilder();
    KmClassifier c = type.getClassifier();
    if (c instanceof KmClassifier.Class k) {
      s.append(simpleName(k.getName()));
    } else if (c instanceof KmClassifier.TypeAlias a) {
      s.append(simpleName(a.getName()));
    } else if (c instanceof KmClassifier.TypeParameter t) {
      s.append(parameters.stream().filter(p -> p.getId() == t.getId()).map(KmTypeParameter::getName).findFirst()
          .orElse("?"));
    }
    if (!type.getArguments().isEmpty()) {
      List<String> args = new ArrayList<>();
      for (KmTypeProjection p : type.getArguments()) {
        if (p.getType() == null || p.getVariance() == null) {
          args.add("*");
          continue;
        }
        String arg = text(p.getType(), parameters);
        args.add(switch (p.getVariance()) {
          case IN -> "in " + arg;
          case OUT -> "out " + arg;
          default -> arg;
        });
      }
      s.append('<').append(String.join(", ", args)).append('>');
    }
    if (Attributes.isNullable(type)) {
      s.append('?');
    }
    return s.toString();
  }

  /** A class name of the metadata ({@code kotlin/collections/List}, {@code demo/Outer.Inner}) without its package. */
  private static String simpleName(String name) {
    return name.substring(name.lastIndexOf('/') + 1);
  }
}
