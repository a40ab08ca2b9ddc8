/**
 * Bridges to ND4J and DL4J training: any {@link dev.minibatch.runtime.BatchProvider} as a {@code
 * MultiDataSetIterator} (or a {@code DataSetIterator} for one data and one label array), and a check
 * of a provider's names, shapes and dtypes against a SameDiff graph's placeholders before training.
 */
@NullMarked
package dev.minibatch.runtime.interop;

import org.jspecify.annotations.NullMarked;
