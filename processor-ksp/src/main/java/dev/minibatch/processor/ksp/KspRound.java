package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.processing.Resolver;
import com.google.devtools.ksp.symbol.KSAnnotated;
import com.google.devtools.ksp.symbol.KSClassDeclaration;
import com.google.devtools.ksp.symbol.KSDeclaration;
import com.google.devtools.ksp.symbol.KSFile;
import dev.minibatch.processor.internal.model.AnnotationData;
import dev.minibatch.processor.internal.model.Round;
import dev.minibatch.processor.internal.model.SourceType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One KSP round as the core's {@link Round}. The final pass ({@code last}) sees no new sources, as
 * javac's last round: it only looks up the types the core deferred.
 */
record KspRound(Resolver resolver, boolean last) implements Round {
  @Override
  public List<SourceType> dataProviderTypes() {
    List<SourceType> out = new ArrayList<>();
    if (!last) {
      for (Iterator<KSAnnotated> it = resolver.getSymbolsWithAnnotation(AnnotationData.DATA_PROVIDER, false).iterator();
          it.hasNext(); ) {
        if (it.next() instanceof KSClassDeclaration c) {
          out.add(new KspType(c, resolver));
        }
      }
    }
    return out;
  }

  @Override
  public Set<String> declaredTypes() {
    Set<String> out = new HashSet<>();
    if (!last) {
      for (Iterator<KSFile> files = resolver.getNewFiles().iterator(); files.hasNext(); ) {
        for (Iterator<KSDeclaration> it = files.next().getDeclarations().iterator(); it.hasNext(); ) {
          collect(it.next(), out);
        }
      }
    }
    return out;
  }

  private static void collect(KSDeclaration d, Set<String> out) {
    if (d instanceof KSClassDeclaration c && c.getQualifiedName() != null) {
      out.add(c.getQualifiedName().asString());
      for (Iterator<KSDeclaration> it = c.getDeclarations().iterator(); it.hasNext(); ) {
        collect(it.next(), out);
      }
    }
  }

  @Override
  public @Nullable SourceType type(String qualifiedName) {
    KSClassDeclaration c = resolver.getClassDeclarationByName(resolver.getKSNameFromString(qualifiedName));
    return c == null ? null : new KspType(c, resolver);
  }
}
