package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.minibatch.runtime.io.image.GridTiles.assertPixels;
import static dev.minibatch.runtime.io.image.GridTiles.tile;

import dev.minibatch.DType;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.image.GridTiles;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.cli.CliTest.Run;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * {@code minibatch show} on a real .rec: the first 20 MNIST t10k digits, tinted into colour PNGs
 * (so a swapped channel shows), packed byte for byte by {@code im2rec --pass-through}. The written
 * PNG is read back with javax.imageio and cut into tiles by the layout docs/images.md gives; each
 * tile is compared with the raw uint8 pixels a provider built here reads for the same samples with
 * the same augmentation, and with --compare the left tile with the record's own PNG decoded by
 * javax.imageio.
 */
class CliShowTest {
  private static final int COUNT = 20;
  private static final int GAP = 4;
  private static final int CAPTION = 16;

  @TempDir Path dir;

  /** Packs the digits into out/digits.rec (and .idx) and returns the .rec. */
  private Path rec() throws IOException {
    byte[] images = CliTest.gunzip(CliTest.IMAGES);
    byte[] labels = CliTest.gunzip(CliTest.LABELS);
    Path root = dir.resolve("digits");
    for (int k = 0; k < COUNT; k++) {
      BufferedImage img = new BufferedImage(28, 28, BufferedImage.TYPE_INT_RGB);
      for (int y = 0; y < 28; y++) {
        for (int x = 0; x < 28; x++) {
          int p = images[16 + k * 784 + y * 28 + x] & 0xff;
          img.setRGB(x, y, p << 16 | (255 - p) << 8 | ((x * 9 + y * 3) & 0xff));
        }
      }
      Path d = Files.createDirectories(root.resolve(Integer.toString(labels[8 + k])));
      ImageIO.write(img, "png", d.resolve(String.format("%05d.png", k)).toFile());
    }
    Path prefix = dir.resolve("out/digits");
    Files.createDirectories(prefix.getParent());
    Run packed = CliTest.run("im2rec", prefix.toString(), root.toString(), "--pass-through");
    assertEquals(0, packed.code(), packed.err());
    return Path.of(prefix + ".rec");
  }

  /** Each record's image, decoded by javax.imageio from the record's bytes: [record][y][x][rgb]. */
  private static List<int[][][]> records(Path rec) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(rec)).order(ByteOrder.LITTLE_ENDIAN);
    List<int[][][]> all = new ArrayList<>();
    while (b.remaining() >= 8) {
      assertEquals(0xCED7230A, b.getInt());
      int length = b.getInt() & 0x1fffffff;
      int start = b.position();
      int flag = b.getInt(start);
      int image = start + 24 + 4 * flag;
      BufferedImage img = ImageIO.read(new ByteArrayInputStream(b.array(), image, start + length - image));
      int[][][] rgb = new int[img.getHeight()][img.getWidth()][];
      for (int y = 0; y < img.getHeight(); y++) {
        for (int x = 0; x < img.getWidth(); x++) {
          int p = img.getRGB(x, y);
          rgb[y][x] = new int[] {p >> 16 & 0xff, p >> 8 & 0xff, p & 0xff};
        }
      }
      all.add(rgb);
      b.position(start + (length + 3 & ~3));
    }
    return all;
  }

  /** The first batch of {@code rec} as raw uint8 pixels (batch, h, w, c), with these augmentations and settings. */
  private static NamedBatch raw(Path rec, int batch, long seed, Consumer<ImageRecordProvider.Augment> augment) {
    Path idx = Path.of(rec.toString().replace(".rec", ".idx"));
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).pathImgidx(idx).dataShape(3, 28, 28)
            .batchSize(batch).shuffle(true).seed(seed).augment(augment).dtype(DType.UINT8).channelsLast(true).build();
        BatchIterator<NamedBatch> it = p.iterator()) {
      return it.next().copy();
    }
  }

  @Test
  void theTilesOfARealRecEqualTheBatchsPixelsAfterAugmentationAndNormalisation() throws IOException {
    Path rec = rec();
    Path png = dir.resolve("grid.png");
    Run r = CliTest.run("show", "--out", png.toString(), "--batch", "12", "--columns", "5", "--shuffle", "--seed", "9",
        "--pad", "4", "--rand-crop", "--rand-mirror", "--brightness", "0.4", "--saturation", "0.5",
        "--mean", "120,110,100", "--std", "60,50,40", "--scale", "0.00392157", rec.toString());
    assertEquals(0, r.code(), r.out() + r.err());
    assertEquals("wrote " + png + ": 12 samples of " + rec + " (recordio)\n", r.out());
    assertEquals("", r.err());
    NamedBatch expected = raw(rec, 12, 9, a -> a.pad(4).randCrop(true).randMirror(true).brightness(0.4f)
        .saturation(0.5f));
    List<int[][][]> originals = records(rec);
    BufferedImage img = ImageIO.read(png.toFile());
    // The default tile scale: the least s with 28 s >= 96, so 4; 12 samples in rows of 5.
    int s = 4;
    int cellW = 28 * s;
    int cellH = 28 * s + CAPTION;
    assertEquals(GAP + 5 * (cellW + GAP), img.getWidth());
    assertEquals(GAP + 3 * (cellH + GAP), img.getHeight());
    int changed = 0;
    for (int i = 0; i < 12; i++) {
      int x0 = GAP + (i % 5) * (cellW + GAP);
      int y0 = GAP + (i / 5) * (cellH + GAP);
      int[][][] t = tile(img, x0, y0, s);
      int index = (int) expected.sampleIndex(i);
      assertPixels(GridTiles.raw(expected.get("data"), i), t, "sample " + index);
      changed += java.util.Arrays.deepEquals(t, originals.get(index)) ? 0 : 1;
      boolean text = false;
      for (int y = y0 + 28 * s; y < y0 + cellH; y++) {
        for (int x = x0; x < x0 + cellW; x++) {
          text |= (img.getRGB(x, y) & 0xffffff) == 0xffffff;
        }
      }
      assertTrue(text, "caption strip of tile " + i);
    }
    assertTrue(changed >= 10, "the augmentation changed most samples: " + changed);
  }

  @Test
  void compareDrawsEachRecordsOwnImageLeftOfItsAugmentedImage() throws IOException {
    Path rec = rec();
    Path png = dir.resolve("compare.png");
    Run r = CliTest.run("show", "--compare", "--out", png.toString(), "--batch", "6", "--columns", "3",
        "--tile-scale", "2", "--no-captions", "--shuffle", "--seed", "4", "--max-rotate-angle", "30", "--rand-mirror",
        rec.toString());
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("each original left of its augmented image"), r.out());
    NamedBatch expected = raw(rec, 6, 4, a -> a.maxRotateAngle(30).randMirror(true));
    List<int[][][]> originals = records(rec);
    BufferedImage img = ImageIO.read(png.toFile());
    int cellW = 2 * 56 + GAP;
    assertEquals(GAP + 3 * (cellW + GAP), img.getWidth());
    assertEquals(GAP + 2 * (56 + GAP), img.getHeight());
    for (int i = 0; i < 6; i++) {
      int x0 = GAP + (i % 3) * (cellW + GAP);
      int y0 = GAP + (i / 3) * (56 + GAP);
      int index = (int) expected.sampleIndex(i);
      assertPixels(originals.get(index), tile(img, x0, y0, 2), "original of record " + index);
      assertPixels(GridTiles.raw(expected.get("data"), i), tile(img, x0 + 56 + GAP, y0, 2), "augmented record " + index);
    }
  }

  @Test
  void aShardSetOfUint8ImagesShowsItsArraysAsTheyAre() throws IOException {
    // The records' pixels as uint8 (c, h, w) arrays in a shard set, in record order.
    Path rec = rec();
    String set = dir.resolve("set").toString();
    Path idx = Path.of(rec.toString().replace(".rec", ".idx"));
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).pathImgidx(idx).dataShape(3, 28, 28)
        .batchSize(10).dtype(DType.UINT8).build()) {
      dev.minibatch.shards.ShardWriter.builder().samplesPerFile(8).build().write(p, set);
    }
    Path png = dir.resolve("set.png");
    Run r = CliTest.run("show", "--out", png.toString(), "--batch", "20", "--columns", "10", "--tile-scale", "1", set);
    assertEquals(0, r.code(), r.out() + r.err());
    assertEquals("wrote " + png + ": 20 samples of " + set + " (shards)\n", r.out());
    List<int[][][]> originals = records(rec);
    BufferedImage img = ImageIO.read(png.toFile());
    assertEquals(GAP + 10 * (28 + GAP), img.getWidth());
    for (int i = 0; i < 20; i++) {
      assertPixels(originals.get(i), tile(img, GAP + (i % 10) * (28 + GAP), GAP + (i / 10) * (28 + CAPTION + GAP), 1),
          "sample " + i);
    }
    Run augment = CliTest.run("show", "--compare", "--out", png.toString(), set);
    assertEquals(3, augment.code(), augment.out() + augment.err());
    assertTrue(augment.err().contains(set + " is shards, whose samples are not augmented: --compare applies to "
        + "recordio and folder"), augment.err());
  }

  @Test
  void aFormatWithoutImagesAndAnUnwritableOutputAreNamed() throws IOException {
    Run csv = CliTest.run("show", "--out", dir.resolve("iris.png").toString(), CliTest.IRIS.toString());
    assertEquals(3, csv.code(), csv.out() + csv.err());
    assertTrue(csv.err().startsWith("minibatch show: " + CliTest.IRIS + " (csv): ImageGrid: no image array among the "
        + "data (data (16, 4) FLOAT)"), csv.err());
    assertTrue(Files.notExists(dir.resolve("iris.png")));

    Run flags = CliTest.run("show", "--rand-mirror", "--out", dir.resolve("iris.png").toString(),
        CliTest.IRIS.toString());
    assertEquals(3, flags.code(), flags.out() + flags.err());
    assertTrue(flags.err().contains(CliTest.IRIS + " is csv, whose samples are not decoded or augmented images: "
        + "--rand-mirror apply to recordio and folder"), flags.err());

    Path nowhere = dir.resolve("no/such/grid.png");
    Run out = CliTest.run("show", "--out", nowhere.toString(), rec().toString());
    assertEquals(3, out.code(), out.out() + out.err());
    assertEquals("minibatch show: cannot write the picture to " + nowhere + ": no such folder " + nowhere.getParent()
        + "\n", out.err());
  }
}
