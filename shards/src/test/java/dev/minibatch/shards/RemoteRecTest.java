package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.image.Im2Rec;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.shards.servers.LoopbackHdfs;
import dev.minibatch.shards.servers.LoopbackS3;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import javax.imageio.ImageIO;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A {@code .rec}/{@code .idx} pair made by im2rec from generated JPEGs, copied byte for byte onto a
 * real HDFS (MiniDFSCluster) and a real S3 server (S3Proxy through S3A), read by {@link
 * ImageRecordProvider} from its {@code hdfs://} and {@code s3a://} locations gives, shuffled under a
 * seed with random resized crops and mirrors, exactly the batches of the local files, for 1 and 3
 * reader threads, with the index, without it (the walk over the remote file), and with a remote
 * {@code .lst} whose labels replace the records'. A missing remote file and a scheme nothing reads
 * are errors naming the location.
 */
class RemoteRecTest {
  private static final int IMAGES = 20;
  private static final int BATCH = 4;
  private static final long SEED = 11;

  @TempDir java.nio.file.Path dir;

  @Test
  void hdfs() throws Exception {
    try (LoopbackHdfs hdfs = LoopbackHdfs.start()) {
      long before = hdfs.bytesServed();
      long recBytes = sameBatchesAsLocal(hdfs.root(), hdfs.conf());
      // The batches came from the server: at least every record was read from it once per epoch read.
      assertTrue(hdfs.bytesServed() - before >= recBytes, "bytes served " + (hdfs.bytesServed() - before));
    }
  }

  @Test
  void s3() throws Exception {
    try (LoopbackS3 s3 = LoopbackS3.start()) {
      sameBatchesAsLocal(s3.root(), s3.conf());
    }
  }

  /** Compares every way of reading the remote copy with the local files; returns the record file's size. */
  private long sameBatchesAsLocal(URI root, Configuration conf) throws IOException {
    Im2Rec.Result local = packed();
    java.nio.file.Path relabelled = dir.resolve("relabelled.lst");
    // Labels 100 + index: none of them a record's label (0..3), so the batches show which were read.
    StringBuilder lst = new StringBuilder();
    for (int i = 0; i < IMAGES; i++) {
      lst.append(i).append('\t').append(100 + i).append('\t').append("img").append(i).append(".jpg\n");
    }
    Files.writeString(relabelled, lst);
    String rec = root.resolve("data/train.rec").toString();
    String idx = root.resolve("data/train.idx").toString();
    String remoteLst = root.resolve("data/relabelled.lst").toString();
    upload(local.rec(), rec, conf);
    upload(local.idx(), idx, conf);
    upload(relabelled, remoteLst, conf);
    HadoopFiles files = new HadoopFiles(conf);

    List<float[]> expected = batches(b -> b.pathImgrec(local.rec()).pathImgidx(local.idx()), 1);
    assertEquals(2 * 2 * IMAGES / BATCH, expected.size());
    // Not vacuous: shuffled with new draws each epoch, the two epochs' first batches differ.
    assertNotEquals(Arrays.toString(expected.get(0)), Arrays.toString(expected.get(2 * IMAGES / BATCH)));
    for (int readers : new int[] {1, 3}) {
      assertSame(expected, batches(b -> b.pathImgrec(rec).pathImgidx(idx).remoteFiles(files), readers),
          rec + ", readers " + readers);
    }
    // An epoch left after its first batch stops reader threads in the middle of their reads; the next
    // epoch is whole and the same as the second epoch read without a stop.
    List<float[]> resumed = new ArrayList<>();
    try (ImageRecordProvider p = builder(b -> b.pathImgrec(rec).pathImgidx(idx).remoteFiles(files), 3).build()) {
      for (NamedBatch batch : p) {
        break;
      }
      for (NamedBatch batch : p) {
        resumed.add(floats(batch.get(ImageRecordProvider.DATA_NAME)));
        resumed.add(floats(batch.get(ImageRecordProvider.LABEL_NAME)));
      }
    }
    assertSame(expected.subList(2 * IMAGES / BATCH, expected.size()), resumed, rec + " after a stopped epoch");
    // Without the index the remote file is walked; the local one is walked too.
    assertSame(batches(b -> b.pathImgrec(local.rec()), 1), batches(b -> b.pathImgrec(rec).remoteFiles(files), 3),
        rec + " walked");
    // A remote list's labels replace the records': the data as before, every label 100 + its image's id.
    List<float[]> listed = batches(b -> b.pathImgrec(rec).pathImgidx(idx).pathImglist(remoteLst).remoteFiles(files), 3);
    assertEquals(expected.size(), listed.size());
    for (int i = 0; i < listed.size(); i++) {
      if (i % 2 == 0) {
        assertArrayEquals(expected.get(i), listed.get(i), remoteLst + ", data " + i);
      } else {
        for (float label : listed.get(i)) {
          assertTrue(label >= 100 && label < 100 + IMAGES && label == Math.rint(label), remoteLst + ": label " + label);
        }
        assertNotEquals(Arrays.toString(expected.get(i)), Arrays.toString(listed.get(i)));
      }
    }
    // The same images in the same order: im2rec numbers the images class by class (5 per class), so the
    // image with id j, list label 100 + j, holds the record label j / 5.
    for (int i = 1; i < listed.size(); i += 2) {
      for (int k = 0; k < BATCH; k++) {
        assertEquals(((int) listed.get(i)[k] - 100) / (IMAGES / CLASSES), (int) expected.get(i)[k],
            "label " + k + " of array " + i);
      }
    }
    return Files.size(local.rec());
  }

  @Test
  void missingRemoteFileIsNamed() throws Exception {
    try (LoopbackHdfs hdfs = LoopbackHdfs.start()) {
      String missing = hdfs.root().resolve("nowhere/train.rec").toString();
      // No remoteFiles: the HadoopFiles that META-INF/services registers reads hdfs://.
      UncheckedIOException e = assertThrows(UncheckedIOException.class,
          () -> ImageRecordProvider.builder().pathImgrec(missing).dataShape(3, 16, 16).batchSize(BATCH).build());
      assertTrue(e.getMessage().contains(missing) && e.getMessage().contains("no such file"), e.getMessage());
      // A missing index beside a present record file names the index.
      String rec = hdfs.root().resolve("data/train.rec").toString();
      upload(packed().rec(), rec, hdfs.conf());
      String idx = hdfs.root().resolve("data/gone.idx").toString();
      UncheckedIOException i = assertThrows(UncheckedIOException.class, () -> ImageRecordProvider.builder()
          .pathImgrec(rec).pathImgidx(idx).remoteFiles(new HadoopFiles(hdfs.conf())).dataShape(3, 16, 16)
          .batchSize(BATCH).build());
      assertTrue(i.getMessage().contains(idx) && i.getMessage().contains("no such file"), i.getMessage());
    }
  }

  @Test
  void schemeNothingReadsNamesTheFix() {
    String location = "nosuchfs://bucket/train.rec";
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ImageRecordProvider.builder().pathImgrec(location).dataShape(3, 16, 16).batchSize(BATCH).build());
    assertTrue(e.getMessage().contains(location) && e.getMessage().contains("minibatch-shards"), e.getMessage());
  }

  private static final int CLASSES = 4;

  /** Two shuffled epochs of the provider {@code source} sets up: data, then labels, per batch. */
  private static List<float[]> batches(Consumer<ImageRecordProvider.Builder> source, int readers) {
    List<float[]> out = new ArrayList<>();
    try (ImageRecordProvider p = builder(source, readers).build()) {
      for (int epoch = 0; epoch < 2; epoch++) {
        for (NamedBatch batch : p) {
          out.add(floats(batch.get(ImageRecordProvider.DATA_NAME)));
          out.add(floats(batch.get(ImageRecordProvider.LABEL_NAME)));
        }
      }
    }
    return out;
  }

  /** The provider's settings: shuffled under a seed, random resized crops and mirrors, normalised. */
  private static ImageRecordProvider.Builder builder(Consumer<ImageRecordProvider.Builder> source, int readers) {
    ImageRecordProvider.Builder b = ImageRecordProvider.builder().dataShape(3, 24, 24).batchSize(BATCH)
        .shuffle(true).seed(SEED).lastBatch(LastBatch.PARTIAL).preprocessThreads(readers).prefetchBuffer(4)
        .augment(a -> a.randomResizedCrop(true).randMirror(true))
        .normalize(n -> n.meanRgb(123.68f, 116.28f, 103.53f).stdRgb(58.4f, 57.1f, 57.4f));
    source.accept(b);
    return b;
  }

  private static void assertSame(List<float[]> expected, List<float[]> got, String what) {
    assertEquals(expected.size(), got.size(), what);
    for (int i = 0; i < got.size(); i++) {
      assertArrayEquals(expected.get(i), got.get(i), what + ", array " + i);
    }
  }

  private static float[] floats(INDArray a) {
    return a.castTo(DataType.FLOAT).dup('c').reshape(a.length()).toFloatVector();
  }

  /**
   * The record file and index im2rec packs from {@link #IMAGES} generated JPEGs, image k in class
   * folder {@code c(k % 4)}: passed through, so the records hold the JPEGs' own bytes.
   */
  private Im2Rec.Result packed() throws IOException {
    java.nio.file.Path folder = dir.resolve("photos");
    for (int k = 0; k < IMAGES; k++) {
      java.nio.file.Path classDir = Files.createDirectories(folder.resolve("c" + (k % CLASSES)));
      // Zero-padded names: im2rec sorts by name, so image ids follow k within each class.
      ImageIO.write(image(k), "jpg", classDir.resolve(String.format("img%02d.jpg", k)).toFile());
    }
    return Im2Rec.builder().folder(folder).output(dir.resolve("train")).passThrough(true).build().run();
  }

  /** A photo-like picture of 40-61 x 34-52 pixels: gradients, a box and a little noise, per image. */
  private static BufferedImage image(int k) {
    int w = 40 + 3 * (k % 8);
    int h = 34 + 3 * (k % 7);
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    SplittableRandom r = new SplittableRandom(k);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        boolean box = x > w / 3 && x < 2 * w / 3 && y > h / 4 && y < h / 2;
        int red = box ? 200 : (x * 255 / w + 13 * k) % 220;
        int green = box ? 40 : (y * 200 / h) ^ (k * 9 & 0x7f);
        int blue = (x + 2 * y + r.nextInt(16)) * 3 % 210;
        img.setRGB(x, y, red << 16 | green << 8 | blue);
      }
    }
    return img;
  }

  /** Copies the local file {@code from} to {@code to} on its file system, byte for byte. */
  private static void upload(java.nio.file.Path from, String to, Configuration conf) throws IOException {
    // Through a stream (FileUtil.copy), not copyFromLocalFile, whose S3A upload the test server refuses.
    try (FileSystem fs = FileSystem.newInstance(URI.create(to), conf)) {
      FileUtil.copy(FileSystem.getLocal(new Configuration()), new Path(from.toUri()), fs, new Path(to), false, conf);
    }
  }
}
