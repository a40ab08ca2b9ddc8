/**
 * The one phrasing of an argument check ({@link dev.minibatch.runtime.check.Check}: "readers must be
 * >= 0, got -1") and of an I/O failure ({@link dev.minibatch.runtime.check.IoFailure}: "cannot read
 * data.csv: no such file"), so that every module, and every format or provider written outside
 * this project, words them alike. It uses nothing else of the runtime, so every package may use it.
 */
@NullMarked
package dev.minibatch.runtime.check;

import org.jspecify.annotations.NullMarked;
