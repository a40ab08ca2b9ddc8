/**
 * HDF5 through jhdf (pure Java): {@link dev.minibatch.runtime.io.hdf5.Hdf5Reader} reads datasets
 * whose axis 0 is the sample axis, with errors that name file and dataset; {@link
 * dev.minibatch.runtime.io.hdf5.Hdf5Provider} serves the samples of a sample specification (Data
 * Provider Core's {@code [file, [datasets], class name, sampling probability]}).
 */
@NullMarked
package dev.minibatch.runtime.io.hdf5;

import org.jspecify.annotations.NullMarked;
