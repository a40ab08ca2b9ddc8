/**
 * Shard sets: samples written once as Parquet files (one fixed-size little-endian binary column per
 * provided array, shape and dtype in the file's metadata) with an index, and a provider that streams
 * them from local disks or any Hadoop file system ({@code file://}, {@code hdfs://}, {@code s3a://})
 * in one seeded global order, dealt to trainers batch by batch so that a saved state resumes under
 * another trainer count. See {@code docs/shards.md}.
 */
@NullMarked
package dev.minibatch.shards;

import org.jspecify.annotations.NullMarked;
