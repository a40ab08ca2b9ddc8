/**
 * The minibatch annotation processor's javac front end: {@link
 * dev.minibatch.processor.MinibatchProcessor} adapts javac's model ({@code JavacRound}, {@code
 * JavacType}, {@code JavacAnnotation}) and output ({@code FilerOutput}) to the front-end-neutral one
 * of {@code dev.minibatch.processor.internal.model}, and runs the core, {@code
 * dev.minibatch.processor.internal.DataProviderStep}: it validates each {@code @DataProvider} type
 * ({@code SampleValidator} into a {@code ValidationReport}), reports every problem with its stable
 * ID ({@code Message}), and only for clean types builds the immutable model ({@code
 * SampleDescriptor}) that the JavaPoet writers read. The KSP2 front end ({@code
 * minibatch-processor-ksp}) runs the same core. Not a runtime dependency of applications.
 */
@NullMarked
package dev.minibatch.processor;

import org.jspecify.annotations.NullMarked;
