/**
 * The minibatch processor under KSP2: {@link
 * dev.minibatch.processor.ksp.MinibatchSymbolProcessorProvider} runs the same core as the javac
 * processor ({@code dev.minibatch.processor.internal.DataProviderStep}) over KSP's symbols, seen
 * the way Java sees them ({@code KspType}, {@code KspMembers}, {@code KspTypes}), and writes the
 * same Java files and diagnostics through KSP's {@code CodeGenerator} and {@code KSPLogger}
 * ({@code KspOutput}). Only the provider is API; it goes on KSP's processor path, never on an
 * application's runtime class path.
 */
@NullMarked
package dev.minibatch.processor.ksp;

import org.jspecify.annotations.NullMarked;
