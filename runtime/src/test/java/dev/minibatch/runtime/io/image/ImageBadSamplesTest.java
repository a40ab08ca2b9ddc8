package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record file with planted bad records (bytes no codec reads) read with {@code
 * badSamples(BadSamples.skip(n))}: exactly the planted records are reported, each naming the file
 * and its record, and a seeded shuffled epoch gives the same batches for 1 and 3 reader threads.
 */
class ImageBadSamplesTest {
  private static final Set<Integer> PLANTED = Set.of(5, 11, 12, 23);
  private static final int IMAGES = 30;

  @TempDir Path dir;

  private Path plantedFile() {
    List<ImageRecord> records = new ArrayList<>();
    for (int i = 0; i < IMAGES; i++) {
      int id = i;
      byte[] image = PLANTED.contains(i) ? ("not an image " + i).getBytes(StandardCharsets.US_ASCII)
          : TestImages.png(6, 6, 3, (y, x, c) -> id * 7 + c);
      records.add(ImageRecord.of(i, i, image));
    }
    return TestImages.write(dir.resolve("planted.rec"), records);
  }

  /** Every batch's labels (label i is record i's), and the epoch's bad samples. */
  private static List<List<Integer>> labels(ImageRecordProvider p, List<BadSample> bad) {
    PipelineIterator<NamedBatch> it = (PipelineIterator<NamedBatch>) p.iterator();
    List<List<Integer>> out = new ArrayList<>();
    while (it.hasNext()) {
      NamedBatch b = it.next();
      List<Integer> rows = new ArrayList<>();
      for (int r = 0; r < b.rows(); r++) {
        int label = (int) b.label().get(0).getFloat(r);
        // The pixels are the record's own: red (OpenCV channel 2) = 7 * id + 2.
        assertEquals(label * 7 + 2, b.data().get(0).getFloat(r, 0, 0, 0), 0f);
        rows.add(label);
      }
      out.add(rows);
    }
    bad.addAll(PipelineStats.of(it).badSamples());
    return out;
  }

  private ImageRecordProvider provider(Path rec, int threads) {
    return ImageRecordProvider.builder().pathImgrec(rec).dataShape(3, 6, 6).batchSize(4).lastBatch(LastBatch.PARTIAL)
        .shuffle(true).seed(5).preprocessThreads(threads).badSamples(BadSamples.skip(PLANTED.size())).build();
  }

  @Test
  void skipReportsExactlyThePlantedRecordsAndGivesTheSameBatchesForAnyThreads() {
    Path rec = plantedFile();
    List<BadSample> bad1 = new ArrayList<>();
    List<BadSample> bad3 = new ArrayList<>();
    List<List<Integer>> one;
    List<List<Integer>> three;
    try (ImageRecordProvider p = provider(rec, 1)) {
      one = labels(p, bad1);
    }
    try (ImageRecordProvider p = provider(rec, 3)) {
      three = labels(p, bad3);
    }
    assertEquals(one, three, "1 and 3 reader threads");
    List<Integer> seen = one.stream().flatMap(List::stream).sorted().toList();
    List<Integer> good = new ArrayList<>();
    for (int i = 0; i < IMAGES; i++) {
      if (!PLANTED.contains(i)) {
        good.add(i);
      }
    }
    assertEquals(good, seen, "every good record once, no planted one");
    assertEquals(Set.copyOf(PLANTED.stream().map(Integer::longValue).toList()),
        Set.copyOf(bad1.stream().map(BadSample::sample).toList()));
    assertEquals(PLANTED.size(), bad1.size());
    assertEquals(bad1.stream().map(BadSample::sample).toList(), bad3.stream().map(BadSample::sample).toList());
    for (BadSample b : bad1) {
      FileFormatException e = assertInstanceOf(FileFormatException.class, b.cause());
      assertEquals(rec.toString(), e.file());
      assertTrue(e.getMessage().contains("record " + b.sample()), e.getMessage());
    }
  }
}
