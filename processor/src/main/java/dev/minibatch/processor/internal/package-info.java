/**
 * Not API: the processor core that every front end runs. {@link
 * dev.minibatch.processor.internal.DataProviderStep} validates each {@code @DataProvider} type
 * ({@code SampleValidator} into a {@code ValidationReport}), reports every problem with its stable
 * ID ({@code Message}), and only for clean types builds the immutable model ({@code
 * SampleDescriptor}) that the JavaPoet writers read ({@code Writers}). It reads the sources only
 * through {@code dev.minibatch.processor.internal.model}, so javac and KSP2 get the same
 * diagnostics and the same files. Public types here exist for the KSP module and may change in any
 * release.
 */
@NullMarked
package dev.minibatch.processor.internal;

import org.jspecify.annotations.NullMarked;
