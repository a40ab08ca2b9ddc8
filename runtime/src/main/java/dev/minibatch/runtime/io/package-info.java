/**
 * File formats and the providers that read them: {@link dev.minibatch.runtime.io.idx} (MNIST's idx
 * files), {@link dev.minibatch.runtime.io.csv} (CSV, MXNet {@code CSVIter}), {@link
 * dev.minibatch.runtime.io.hdf5} (HDF5 through jhdf) and {@link dev.minibatch.runtime.io.mnist}
 * (MXNet {@code MNISTIter}).
 *
 * <p>Every error about a file's content is a {@link dev.minibatch.runtime.io.FileFormatException}
 * naming the file, and where it applies the line, column or dataset, the expected and the found
 * value. I/O failures are {@link java.io.UncheckedIOException}s naming the file.
 */
@NullMarked
package dev.minibatch.runtime.io;

import org.jspecify.annotations.NullMarked;
