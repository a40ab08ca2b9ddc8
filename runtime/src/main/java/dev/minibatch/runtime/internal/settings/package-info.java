/**
 * NOT API. The batch settings a provider builder resolves once ({@code Sampling}) and the one seed
 * mix ({@code Seeds}); every engine and reader only reads them. It may change in any release.
 */
@NullMarked
package dev.minibatch.runtime.internal.settings;

import org.jspecify.annotations.NullMarked;
