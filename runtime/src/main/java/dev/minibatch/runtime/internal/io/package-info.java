/**
 * NOT API. What the file formats share: reading whole files and gzip content ({@code FileBytes},
 * {@code GzipContent}), and the base
 * engine every file provider holds ({@code FileEngine}). It may change in any release.
 */
@NullMarked
package dev.minibatch.runtime.internal.io;

import org.jspecify.annotations.NullMarked;
