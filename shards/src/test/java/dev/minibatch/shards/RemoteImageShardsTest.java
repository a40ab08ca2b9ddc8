package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.minibatch.LastBatch;
import dev.minibatch.runtime.io.image.EncodedImages;
import dev.minibatch.shards.servers.LoopbackHdfs;
import dev.minibatch.shards.servers.LoopbackS3;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard set of encoded images copied file for file onto a real HDFS (MiniDFSCluster) and a real
 * S3 server (S3Proxy through S3A) gives, under the same seed, random resized crop, mirror and
 * normalisation, exactly the batches the local set gives, for 1 and 3 reader threads: decoding
 * and the seeded draws do not depend on where the bytes come from. A second remote set, one image
 * of which differs, shows that the comparison sees a single image's pixels.
 */
class RemoteImageShardsTest {
  private static final int IMAGES = 24;
  private static final int BATCH = 4;
  private static final int SIDE = 24;
  private static final long SEED = 5;
  /** The image the perturbed copy changes. */
  private static final int PERTURBED = 13;

  @TempDir java.nio.file.Path dir;

  @Test
  void hdfs() throws Exception {
    try (LoopbackHdfs hdfs = LoopbackHdfs.start()) {
      sameBatchesAsLocal(hdfs.root(), hdfs.conf());
    }
  }

  @Test
  void s3() throws Exception {
    try (LoopbackS3 s3 = LoopbackS3.start()) {
      sameBatchesAsLocal(s3.root(), s3.conf());
    }
  }

  private void sameBatchesAsLocal(URI root, Configuration conf) throws IOException {
    String local = write(images(false), "local");
    String remote = root.resolve("photos/").toString();
    ImageBatches.copySet(local, remote, conf);
    List<float[]> expected = batches(local, null, 1);
    assertEquals(2 * 2 * IMAGES / BATCH, expected.size());
    // Not vacuous: the draws change between epochs, so the two epochs' first batches differ.
    assertNotEquals(Arrays.toString(expected.get(0)), Arrays.toString(expected.get(2 * IMAGES / BATCH)));
    for (int readers : new int[] {1, 3}) {
      List<float[]> got = batches(remote, conf, readers);
      assertEquals(expected.size(), got.size());
      for (int i = 0; i < got.size(); i++) {
        assertArrayEquals(expected.get(i), got.get(i), remote + ", readers " + readers + ", array " + i);
      }
    }
    // The same set with image PERTURBED re-encoded brighter: only the data of its batch differs.
    String changed = root.resolve("perturbed/").toString();
    ImageBatches.copySet(write(images(true), "perturbed"), changed, conf);
    List<float[]> other = batches(changed, conf, 3);
    int batchOfPerturbed = PERTURBED / BATCH;
    for (int i = 0; i < other.size(); i++) {
      int epochBatch = (i / 2) % (IMAGES / BATCH);
      boolean data = i % 2 == 0;
      if (data && epochBatch == batchOfPerturbed) {
        assertFalse(Arrays.equals(expected.get(i), other.get(i)), "array " + i + " holds the perturbed image");
      } else {
        assertArrayEquals(expected.get(i), other.get(i), "array " + i);
      }
    }
  }

  /** Two epochs of the set, unshuffled so that batch k holds images 4k..4k+3: data, then labels. */
  private static List<float[]> batches(String set, Configuration conf, int readers) {
    ShardProvider.Builder b = ShardProvider.builder(set).batchSize(BATCH).seed(SEED).shuffle(false)
        .lastBatch(LastBatch.PARTIAL).readers(readers)
        .augment("data", a -> a.randomResizedCrop(true).randMirror(true))
        .normalize("data", n -> n.meanRgb(123.68f, 116.28f, 103.53f).stdRgb(58.4f, 57.1f, 57.4f));
    if (conf != null) {
      b.configuration(conf);
    }
    try (ShardProvider p = b.build()) {
      return ImageBatches.read(p, 2, "data", "softmax_label");
    }
  }

  private String write(List<EncodedImages.Image> images, String name) {
    String set = dir.resolve(name).toString();
    ImageShardWriter.builder().dataShape(3, SIDE, SIDE).writer(ShardWriter.builder().samplesPerFile(7).build()).build()
        .write(images, set);
    return set;
  }

  /** {@link #IMAGES} photo-like JPEGs of 40-63 x 36-57 pixels labelled i % 5; {@code perturbed}: one brighter. */
  private static List<EncodedImages.Image> images(boolean perturbed) {
    List<EncodedImages.Image> out = new ArrayList<>();
    for (int i = 0; i < IMAGES; i++) {
      out.add(new EncodedImages.Image(jpeg(i, perturbed && i == PERTURBED ? 40 : 0), new float[] {i % 5}));
    }
    return out;
  }

  private static byte[] jpeg(int i, int brighter) {
    int w = 40 + 3 * (i % 8);
    int h = 36 + 3 * (i % 7);
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    SplittableRandom r = new SplittableRandom(i);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        boolean box = x > w / 3 && x < 2 * w / 3 && y > h / 4 && y < h / 2;
        int red = Math.min(255, (box ? 210 : (x * 255 / w + 11 * i) % 200) + brighter);
        int green = Math.min(255, (box ? 30 : (y * 200 / h) ^ (i * 7 & 0x7f)) + brighter);
        int blue = Math.min(255, (x + 2 * y + r.nextInt(12)) * 3 % 200 + brighter);
        img.setRGB(x, y, red << 16 | green << 8 | blue);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      ImageIO.write(img, "jpg", out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
