package dev.minibatch.processor.ksp;

import com.google.devtools.ksp.processing.Resolver;
import com.google.devtools.ksp.processing.SymbolProcessor;
import com.google.devtools.ksp.processing.SymbolProcessorEnvironment;
import com.google.devtools.ksp.symbol.KSAnnotated;
import dev.minibatch.processor.internal.DataProviderStep;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Runs the core's {@link DataProviderStep} once per KSP round, and once more in {@link #finish()},
 * KSP's end of processing, as javac's last round: types deferred because a member's type did not
 * resolve are validated then, so a type no processor generated becomes an {@code UnresolvedType}
 * error. Nothing is handed back to KSP to defer: the core keeps its deferred types by name.
 */
final class MinibatchSymbolProcessor implements SymbolProcessor {
  private final SymbolProcessorEnvironment environment;
  /** Made in the first round: KSP2 runs no round once an error is logged, and a bad option is one. */
  private @Nullable DataProviderStep step;
  /** The last round's resolver, for the final pass. */
  private @Nullable Resolver last;

  MinibatchSymbolProcessor(SymbolProcessorEnvironment environment) {
    this.environment = environment;
  }

  @Override
  public List<KSAnnotated> process(Resolver resolver) {
    if (step == null) {
      step = new DataProviderStep(environment.getOptions(),
          new KspOutput(environment.getCodeGenerator(), environment.getLogger()));
    }
    last = resolver;
    step.process(new KspRound(resolver, false));
    return List.of();
  }

  @Override
  public void finish() {
    if (step != null && last != null) {
      step.process(new KspRound(last, true));
    }
  }
}
