/**
 * CSV: a byte-level parser ({@link dev.minibatch.runtime.io.csv.CsvParser}) configured by a {@link
 * dev.minibatch.runtime.io.csv.CsvFormat}, producing a {@link dev.minibatch.runtime.io.csv.CsvTable};
 * and {@link dev.minibatch.runtime.io.csv.CsvProvider}, MXNet's {@code CSVIter} on top of it.
 *
 * <p>The parser reads bytes, never Strings: fields are located in the file's bytes and numbers
 * parsed from them in place (FastDoubleParser for floats, an exact loop for integers). Large files
 * are cut at record boundaries into blocks parsed in parallel; the result is identical to the
 * sequential parse.
 */
@NullMarked
package dev.minibatch.runtime.io.csv;

import org.jspecify.annotations.NullMarked;
