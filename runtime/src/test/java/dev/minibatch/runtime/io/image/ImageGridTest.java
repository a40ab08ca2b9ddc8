package dev.minibatch.runtime.io.image;

import static dev.minibatch.runtime.io.image.GridTiles.assertPixels;
import static dev.minibatch.runtime.io.image.GridTiles.raw;
import static dev.minibatch.runtime.io.image.GridTiles.tile;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.TestFiles;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The grid read back with javax.imageio and cut into tiles by the documented layout: each tile's
 * pixels against independent answers — the raw uint8 pixels a second provider writes for the same
 * samples, and the colour PNGs this test made from the MNIST digits (real data) for the originals.
 */
class ImageGridTest {
  /** The first 24 MNIST t10k digits, tinted into colour so a swapped channel shows. */
  private static final int COUNT = 24;
  @TempDir static Path dir;
  private static Path root;
  /** RGB pixels of the PNG behind each sample index, in the folder's order (class, then file name). */
  private static final List<int[][][]> ORIGINALS = new ArrayList<>();
  private static final List<Integer> LABELS = new ArrayList<>();

  private static byte[] gunzip(Path file) throws IOException {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return in.readAllBytes();
    }
  }

  @BeforeAll
  static void digits() throws IOException {
    byte[] images = gunzip(TestFiles.resource("mnist/t10k-images-idx3-ubyte.gz"));
    byte[] labels = gunzip(TestFiles.resource("mnist/t10k-labels-idx1-ubyte.gz"));
    root = dir.resolve("digits");
    // Sorted by class folder, then file name: the folder provider's sample order.
    List<int[]> order = new ArrayList<>();
    for (int k = 0; k < COUNT; k++) {
      order.add(new int[] {labels[8 + k], k});
    }
    order.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
    for (int[] o : order) {
      int k = o[1];
      int[][][] rgb = new int[28][28][3];
      BufferedImage img = new BufferedImage(28, 28, BufferedImage.TYPE_INT_RGB);
      for (int y = 0; y < 28; y++) {
        for (int x = 0; x < 28; x++) {
          int p = images[16 + k * 784 + y * 28 + x] & 0xff;
          rgb[y][x] = new int[] {p, 255 - p, (x * 9 + y * 3) & 0xff};
          img.setRGB(x, y, rgb[y][x][0] << 16 | rgb[y][x][1] << 8 | rgb[y][x][2]);
        }
      }
      Path d = Files.createDirectories(root.resolve(Integer.toString(o[0])));
      ImageIO.write(img, "png", d.resolve(String.format("%05d.png", k)).toFile());
      ORIGINALS.add(rgb);
      LABELS.add(o[0]);
    }
  }

  private static ImageRecordProvider provider(Consumer<ImageRecordProvider.Builder> more) {
    ImageRecordProvider.Builder b = ImageRecordProvider.builder().imageFolder(root).dataShape(3, 28, 28)
        .batchSize(12).shuffle(true).seed(5).readers(2);
    more.accept(b);
    return b.build();
  }

  private static final Consumer<ImageRecordProvider.Builder> AUGMENTED = b -> b
      .augment(a -> a.pad(4).randCrop(true).randMirror(true).brightness(0.4f))
      .normalize(n -> n.meanRgb(120, 110, 100).stdRgb(60, 50, 40).scale(1f / 255));

  private static NamedBatch first(ImageRecordProvider p) {
    try (BatchIterator<NamedBatch> it = p.iterator()) {
      return it.next().copy();
    }
  }

  @Test
  void tilesOfNormalisedFloatsEqualTheRawPixelsOfTheSameSamples() throws IOException {
    NamedBatch floats;
    NamedBatch bytes;
    ImageGrid grid;
    try (ImageRecordProvider p = provider(AUGMENTED);
        ImageRecordProvider u = provider(AUGMENTED.andThen(b -> b.dtype(DType.UINT8).channelsLast(true)))) {
      floats = first(p);
      bytes = first(u);
      grid = ImageGrid.builder().from(p).columns(5).tileScale(3).build();
    }
    assertArrayEquals(floats.sampleIndices(), bytes.sampleIndices());
    Path png = dir.resolve("grid.png");
    grid.write(floats, png);
    BufferedImage img = ImageIO.read(png.toFile());
    // 12 samples in rows of 5: 3 rows; a cell is 84 x (84 + 16).
    int g = ImageGrid.GAP;
    int cellH = 84 + ImageGrid.CAPTION;
    assertEquals(g + 5 * (84 + g), img.getWidth());
    assertEquals(g + 3 * (cellH + g), img.getHeight());
    int augmentedTiles = 0;
    for (int i = 0; i < 12; i++) {
      int x0 = g + (i % 5) * (84 + g);
      int y0 = g + (i / 5) * (cellH + g);
      int[][][] t = tile(img, x0, y0, 3);
      assertPixels(raw(bytes.get("data"), i), t, "sample " + floats.sampleIndex(i));
      boolean same = true;
      for (int y = 0; y < 28 && same; y++) {
        for (int x = 0; x < 28 && same; x++) {
          same = java.util.Arrays.equals(t[y][x], ORIGINALS.get((int) floats.sampleIndex(i))[y][x]);
        }
      }
      augmentedTiles += same ? 0 : 1;
      // The caption strip holds white text on the background.
      boolean text = false;
      for (int y = y0 + 84; y < y0 + cellH; y++) {
        for (int x = x0; x < x0 + 84; x++) {
          text |= (img.getRGB(x, y) & 0xffffff) == 0xffffff;
        }
      }
      assertTrue(text, "caption of tile " + i);
    }
    assertTrue(augmentedTiles >= 10, "the augmentation changed most tiles: " + augmentedTiles);
  }

  @Test
  void compareDrawsTheUnaugmentedDecodeLeftOfTheAugmentedImage() throws IOException {
    NamedBatch augmented;
    NamedBatch original;
    NamedBatch bytes;
    ImageGrid grid;
    try (ImageRecordProvider p = provider(AUGMENTED);
        ImageRecordProvider o = provider(b -> b.normalize(n -> n.meanRgb(120, 110, 100).stdRgb(60, 50, 40)
            .scale(1f / 255)));
        ImageRecordProvider u = provider(AUGMENTED.andThen(b -> b.dtype(DType.UINT8).channelsLast(true)))) {
      augmented = first(p);
      original = first(o);
      bytes = first(u);
      grid = ImageGrid.builder().from(p).columns(4).tileScale(2).build();
    }
    BufferedImage img = grid.render(augmented, original);
    int g = ImageGrid.GAP;
    int cellW = 2 * 56 + g;
    int cellH = 56 + ImageGrid.CAPTION;
    assertEquals(g + 4 * (cellW + g), img.getWidth());
    assertEquals(g + 3 * (cellH + g), img.getHeight());
    for (int i = 0; i < 12; i++) {
      int x0 = g + (i % 4) * (cellW + g);
      int y0 = g + (i / 4) * (cellH + g);
      int index = (int) augmented.sampleIndex(i);
      assertPixels(ORIGINALS.get(index), tile(img, x0, y0, 2), "original of sample " + index);
      assertPixels(raw(bytes.get("data"), i), tile(img, x0 + 56 + g, y0, 2), "augmented sample " + index);
    }
  }

  @Test
  void aMeanImageIsUndoneValueByValue() {
    // Without a mirror, the mean image is subtracted where the value lands, so the tiles are exact.
    Path npy = dir.resolve("mean.npy");
    Consumer<ImageRecordProvider.Builder> shifted = b -> b.augment(a -> a.pad(2).randCrop(true).brightness(0.3f));
    NamedBatch floats;
    NamedBatch bytes;
    ImageGrid grid;
    try (ImageRecordProvider p = provider(shifted.andThen(b -> b.normalize(n -> n.meanImg(npy).scale(0.5f))));
        ImageRecordProvider u = provider(shifted.andThen(b -> b.dtype(DType.UINT8).channelsLast(true)))) {
      assertTrue(Files.isRegularFile(npy));
      floats = first(p);
      bytes = first(u);
      grid = ImageGrid.builder().from(p).columns(12).tileScale(1).captions(false).build();
    }
    BufferedImage img = grid.render(floats);
    for (int i = 0; i < 12; i++) {
      assertPixels(raw(bytes.get("data"), i), tile(img, ImageGrid.GAP + i * (28 + ImageGrid.GAP), ImageGrid.GAP, 1),
          "sample " + floats.sampleIndex(i));
    }
  }

  @Test
  void classNamesCaptionsOffAndChannelsLastFloats() {
    NamedBatch batch;
    try (ImageRecordProvider p = provider(b -> b.channelsLast(true).dtype(DType.FLOAT32))) {
      batch = first(p);
    }
    // No normalisation: the float values are the pixels; without captions a cell is the tile alone.
    BufferedImage img = ImageGrid.builder().captions(false).columns(12).tileScale(1).build().render(batch);
    assertEquals(ImageGrid.GAP + 12 * (28 + ImageGrid.GAP), img.getWidth());
    assertEquals(2 * ImageGrid.GAP + 28, img.getHeight());
    for (int i = 0; i < 12; i++) {
      assertPixels(ORIGINALS.get((int) batch.sampleIndex(i)), tile(img, ImageGrid.GAP + i * (28 + ImageGrid.GAP),
          ImageGrid.GAP, 1), "sample " + batch.sampleIndex(i));
    }
    assertEquals(LABELS.get((int) batch.sampleIndex(0)), batch.get("softmax_label").getInt(0));
  }

  @Test
  void mismatchedSamplesAndArraysWithoutImagesAreNamed() {
    NamedBatch shuffled;
    NamedBatch inOrder;
    try (ImageRecordProvider p = provider(b -> {});
        ImageRecordProvider o = provider(b -> b.shuffle(false))) {
      shuffled = first(p);
      inOrder = first(o);
    }
    assertNotEquals(shuffled.sampleIndex(0), inOrder.sampleIndex(0));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ImageGrid.builder().build().render(shuffled, inOrder));
    assertTrue(e.getMessage().contains("the same sampling settings"), e.getMessage());

    INDArray table = Nd4j.createFromArray(new float[][] {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}});
    try (ArrayDataProvider a = ArrayDataProvider.builder().data(table).batchSize(2).build();
        BatchIterator<?> it = a.iterator()) {
      dev.minibatch.runtime.Batch b = it.next();
      IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
          () -> ImageGrid.builder().build().render(b));
      assertTrue(none.getMessage().contains("no image array among the data (data (2, 5) FLOAT)"), none.getMessage());
    }
    UncheckedIOException write = assertThrows(UncheckedIOException.class,
        () -> ImageGrid.builder().build().write(shuffled, dir.resolve("no/such/folder/grid.png")));
    assertTrue(write.getMessage().contains(dir.resolve("no/such/folder/grid.png").toString()), write.getMessage());
  }
}
