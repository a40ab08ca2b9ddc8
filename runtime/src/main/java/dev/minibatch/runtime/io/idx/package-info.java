/**
 * The idx format of the MNIST files: a big-endian header (two zero bytes, an element-type code, the
 * rank, then one 32-bit extent per axis) followed by the elements, row-major and big-endian. {@link
 * dev.minibatch.runtime.io.idx.IdxFile} reads every element type, raw or gzip, and checks the
 * header against the file's length.
 */
@NullMarked
package dev.minibatch.runtime.io.idx;

import org.jspecify.annotations.NullMarked;
