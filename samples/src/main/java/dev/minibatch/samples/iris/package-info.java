/** CSV with a header and a string class column (iris), trained by a tiny SameDiff model. */
@NullMarked
package dev.minibatch.samples.iris;

import org.jspecify.annotations.NullMarked;
