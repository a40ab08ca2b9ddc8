/**
 * NOT API. The one phrasing of an argument check ({@code Check}: "readers must be >= 0, got -1")
 * and of an I/O failure ({@code IoFailure}: "cannot read data.csv: no such file"), so that every
 * module words them alike. It uses nothing else of the runtime and may change in any release.
 */
@NullMarked
package dev.minibatch.runtime.internal.check;

import org.jspecify.annotations.NullMarked;
