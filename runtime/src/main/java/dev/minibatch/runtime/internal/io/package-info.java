/**
 * NOT API. What the file formats share: reading whole files and gzip content ({@code FileBytes},
 * {@code GzipContent}), and the base
 * class of the file providers ({@code FileProvider}). It may change in any release.
 */
@NullMarked
package dev.minibatch.runtime.internal.io;

import org.jspecify.annotations.NullMarked;
