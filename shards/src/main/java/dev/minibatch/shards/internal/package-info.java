/**
 * Not API: what the providers the annotation processor generates call to read a shard set. May
 * change in any release.
 */
@NullMarked
package dev.minibatch.shards.internal;

import org.jspecify.annotations.NullMarked;
