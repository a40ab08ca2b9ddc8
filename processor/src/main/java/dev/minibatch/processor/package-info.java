/**
 * The minibatch annotation processor: {@link dev.minibatch.processor.MinibatchProcessor} runs one
 * {@code DataProviderStep} per round, which validates each {@code @DataProvider} type ({@code
 * SampleValidator} into a {@code ValidationReport}), prints every problem with its stable ID
 * ({@code Message}), and only for clean types builds the immutable model ({@code
 * SampleDescriptor}) that the JavaPoet writers read. Not a runtime dependency of applications.
 */
@NullMarked
package dev.minibatch.processor;

import org.jspecify.annotations.NullMarked;
