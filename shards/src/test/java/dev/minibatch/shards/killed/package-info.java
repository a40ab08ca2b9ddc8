/** A writer killed at a chosen moment: the file system that pauses it there, and the child process it runs in. */
@NullMarked
package dev.minibatch.shards.killed;

import org.jspecify.annotations.NullMarked;
