package dev.minibatch;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class or record that describes ONE sample. The minibatch annotation processor generates,
 * next to it, a provider ({@code NameProvider}), a typed batch ({@code NameBatch}) and a builder.
 *
 * <p>Every tensor-valued member of the sample carries {@link Provides}; at least one of them must be
 * data (not a label).
 *
 * <pre>{@code
 * @DataProvider
 * public record Digit(
 *     @Provides(shape = {28, 28}) float[][] image,
 *     @Provides(name = "softmax_label", label = true) int label) {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface DataProvider {
  /**
   * The default batch size of the generated provider's builder. 0 (the default) declares none: the
   * builder must then be given one with {@code batchSize(n)}, and {@code build()} fails with an
   * {@link IllegalStateException} saying so when it is not. A negative value is a compile error.
   * (On the builder, an explicit {@code batchSize(0)} means the whole shard as one batch, MXNet.jl's
   * {@code batch_size = 0}; see {@code ProviderBuilder.batchSize}.)
   */
  int batchSize() default 0;
}
