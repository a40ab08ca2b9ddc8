package dev.minibatch.shards.killed;

import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shards.IdSamples;
import dev.minibatch.shards.SchemedLocalFileSystem;
import dev.minibatch.shards.ShardWriter;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The child process of {@link KilledWriterTest}: writes {@link #SAMPLES} samples (x = [id, id]
 * float32, y = id mod 7 int32) into {@code pausefs://DIR} as one {@code write} ({@code args[2]} =
 * {@code write}) or as two segments and a commit ({@code segments}), pausing in the close of the first
 * file whose name contains {@code args[1]} until it is killed.
 */
public final class KilledWriter {
  static final int SAMPLES = 300;
  static final int PER_FILE = 50;

  private KilledWriter() {}

  public static void main(String[] args) {
    Configuration conf = SchemedLocalFileSystem.conf("pausefs", PausingFileSystem.class);
    conf.set(PausingFileSystem.PAUSE_ON, args[1]);
    write("pausefs://" + args[0], conf, args[2].equals("segments"));
    System.out.println("DONE");
  }

  /** Writes the samples into {@code directory}, whole or as segments 0 and 1 and their commit. */
  static void write(String directory, Configuration conf, boolean segments) {
    ShardWriter writer = ShardWriter.builder().samplesPerFile(PER_FILE).configuration(conf).build();
    if (!segments) {
      try (ArrayDataProvider source = IdSamples.provider(0, SAMPLES)) {
        writer.write(source, directory);
      }
      return;
    }
    List<ShardWriter.WrittenSegment> written = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      try (ShardWriter.Segment segment = writer.segment(directory, p);
          ArrayDataProvider source = IdSamples.provider(p * SAMPLES / 2, SAMPLES / 2)) {
        segment.write(source);
        written.add(segment.finish());
      }
    }
    writer.commit(directory, written);
  }
}
