package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.symbol.KSClassDeclaration;
import com.google.devtools.ksp.symbol.KSDeclaration;
import com.google.devtools.ksp.symbol.KSName;
import com.google.devtools.ksp.symbol.KSType;
import com.google.devtools.ksp.symbol.KSTypeAlias;
import com.google.devtools.ksp.symbol.KSTypeArgument;
import com.google.devtools.ksp.symbol.KSTypeParameter;
import com.google.devtools.ksp.symbol.KSTypeReference;
import com.google.devtools.ksp.symbol.Variance;
import dev.minibatch.processor.internal.model.SourceMember;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The Kotlin declaration behind a member of a Kotlin class ({@link SourceMember.Kotlin}), from KSP's
 * symbols: the type as Kotlin writes it, with simple names and aliases expanded, written as the
 * javac front end writes it from the class's {@code @kotlin.Metadata}, so both report the same text.
 */
final class KotlinTypes {
  private KotlinTypes() {}

  /** A property's or function's Kotlin view; {@code jvmName} is its getter's or its own JVM name. */
  static SourceMember.Kotlin of(KSTypeReference reference, @Nullable String jvmName) {
    KSType type = expand(reference.resolve());
    String classifier = type.getDeclaration() instanceof KSClassDeclaration c && c.getQualifiedName() != null
        ? c.getQualifiedName().asString() : "";
    return new SourceMember.Kotlin(text(type), classifier, type.isMarkedNullable(),
        jvmName != null && jvmName.indexOf('-') >= 0 ? jvmName : null);
  }

  /** A type alias's type, as Kotlin's metadata records a type written with an alias; nullable if either is. */
  private static KSType expand(KSType type) {
    KSType t = type;
    while (t.getDeclaration() instanceof KSTypeAlias a) {
      KSType aliased = a.getType().resolve();
      t = t.isMarkedNullable() ? aliased.makeNullable() : aliased;
    }
    return t;
  }

  private static String text(KSType type) {
    StringBuilder s = new StringBuilder();
    KSDeclaration d = type.getDeclaration();
    if (d instanceof KSTypeParameter p) {
      s.append(p.getName().asString());
    } else {
      KSName q = d.getQualifiedName();
      String pkg = d.getPackageName().asString();
      String name = q == null ? d.getSimpleName().asString() : q.asString();
      s.append(!pkg.isEmpty() && name.startsWith(pkg + ".") ? name.substring(pkg.length() + 1) : name);
    }
    if (!type.getArguments().isEmpty()) {
      List<String> args = new ArrayList<>();
      for (KSTypeArgument a : type.getArguments()) {
        KSTypeReference ref = a.getType();
        if (a.getVariance() == Variance.STAR || ref == null) {
          args.add("*");
          continue;
        }
        String arg = text(expand(ref.resolve()));
        args.add(switch (a.getVariance()) {
          case COVARIANT -> "out " + arg;
          case CONTRAVARIANT -> "in " + arg;
          default -> arg;
        });
      }
      s.append('<').append(String.join(", ", args)).append('>');
    }
    if (type.isMarkedNullable()) {
      s.append('?');
    }
    return s.toString();
  }
}
