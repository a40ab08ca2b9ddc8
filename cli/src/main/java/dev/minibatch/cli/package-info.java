/**
 * The {@code minibatch} command line: {@code inspect}, {@code validate} and {@code bench} data files
 * (CSV, MNIST idx, HDF5, RecordIO image records, image folders, shard sets; every format is a {@link
 * dev.minibatch.runtime.io.Format} service, and more plug in the same way), {@code im2rec} to pack images into RecordIO, and
 * {@code describe} the schema of a generated provider. Entry point: {@link dev.minibatch.cli.Minibatch}.
 */
@NullMarked
package dev.minibatch.cli;

import org.jspecify.annotations.NullMarked;
