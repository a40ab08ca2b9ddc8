/**
 * dmlc RecordIO, the record container of MXNet ({@code .rec} files with optional {@code .idx}
 * indexes): {@link dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter} writes records (splitting a
 * payload at every aligned magic word, as dmlc does), {@link
 * dev.minibatch.runtime.io.recordio.RecordIOFile} reads them by position or key, and {@link
 * dev.minibatch.runtime.io.recordio.ImageRecord} is the image record inside ({@code IRHeader},
 * labels, encoded image). im2rec's {@code .lst} files are read by the image package.
 *
 * <p>Every content error is a {@link dev.minibatch.runtime.io.FileFormatException} naming the file,
 * the record's index and its byte offset.
 */
@NullMarked
package dev.minibatch.runtime.io.recordio;

import org.jspecify.annotations.NullMarked;
