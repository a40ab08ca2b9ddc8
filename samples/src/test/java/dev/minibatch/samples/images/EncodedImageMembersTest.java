package dev.minibatch.samples.images;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import dev.minibatch.runtime.pipeline.PipelineStats;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A generated provider over samples whose member is an encoded image ({@code @Provides(encoding =
 * IMAGE_RGB) byte[]}): the images decode to their own pixels (PNGs drawn here, so the answer is
 * known without a decoder); with augmentation and normalisation the batches equal {@link
 * ImageRecordProvider}'s over a record file of the same JPEGs with the same seed (one decode step,
 * the same per-sample draws), for 1 and 3 reader threads and from a stream; a broken image is
 * named by member and sample and counted by the bad-sample budget.
 */
class EncodedImageMembersTest {
  private static final int IMAGES = 14;
  private static final long SEED = 7;
  private static final Consumer<ImageRecordProvider.Augment> AUGMENT = a -> a.randomResizedCrop(true).randMirror(true);
  private static final Consumer<ImageRecordProvider.Normalize> NORMALIZE =
      n -> n.meanRgb(123.68f, 116.28f, 103.53f).stdRgb(58.4f, 57.1f, 57.4f);

  @TempDir
  Path dir;

  /** Image {@code i}: a colour gradient with a box, {@code 30 + 3(i % 5)} by {@code 28 + 2(i % 4)}. */
  private static BufferedImage picture(int i, int w, int h) {
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        boolean box = x > w / 4 && x < w / 2 && y > h / 3 && y < 2 * h / 3;
        int red = box ? 230 : (x * 255 / w + 7 * i) % 256;
        int green = box ? 20 : (y * 255 / h) ^ (i * 13 & 0xff);
        int blue = (x + y + 11 * i) * 3 % 256;
        img.setRGB(x, y, red << 16 | green << 8 | blue);
      }
    }
    return img;
  }

  private static byte[] encode(BufferedImage img, String format) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      assertTrue(ImageIO.write(img, format, out));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static List<Photo> photos() {
    List<Photo> out = new ArrayList<>();
    for (int i = 0; i < IMAGES; i++) {
      out.add(new Photo(encode(picture(i, 30 + 3 * (i % 5), 28 + 2 * (i % 4)), "jpg"), i % 3));
    }
    return out;
  }

  private Path recordFile(List<Photo> photos) {
    Path rec = dir.resolve("photos.rec");
    try (RecordIOWriter out = RecordIOWriter.create(rec, dir.resolve("photos.idx"))) {
      for (int i = 0; i < photos.size(); i++) {
        out.write(i, ImageRecord.of(i, photos.get(i).label(), photos.get(i).jpeg()).encode());
      }
    }
    return rec;
  }

  /** Each batch's data values, then its labels, for two epochs. */
  private static List<float[]> epochs(Iterable<? extends Batch> provider, String data, String label) {
    List<float[]> out = new ArrayList<>();
    for (int e = 0; e < 2; e++) {
      for (Batch b : provider) {
        out.add(floats(b.get(data)));
        out.add(floats(b.get(label)));
      }
    }
    return out;
  }

  private static float[] floats(INDArray a) {
    return a.castTo(DataType.FLOAT).dup('c').reshape(a.length()).toFloatVector();
  }

  private static void assertSame(List<float[]> expected, List<float[]> got, String what) {
    assertEquals(expected.size(), got.size(), what);
    for (int i = 0; i < expected.size(); i++) {
      assertArrayEquals(expected.get(i), got.get(i), what + ", array " + i);
    }
  }

  @Test
  void pngsDecodeToTheirOwnPixelsChannelsLast() {
    List<Thumbnail> thumbs = new ArrayList<>();
    List<BufferedImage> pictures = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      BufferedImage p = picture(i, 8, 8);
      pictures.add(p);
      thumbs.add(new Thumbnail(encode(p, "png")));
    }
    try (ThumbnailProvider p = ThumbnailProvider.builder().samples(thumbs).batchSize(5).build()) {
      assertArrayEquals(new long[] {5, 8, 8, 3}, p.provideData().get(0).shape().toLongArray());
      assertEquals("NHWC", p.provideData().get(0).layout());
      ThumbnailBatch b = p.iterator().next();
      INDArray png = b.getPng();
      assertEquals(DataType.UINT8, png.dataType());
      for (int i = 0; i < 5; i++) {
        for (int y = 0; y < 8; y++) {
          for (int x = 0; x < 8; x++) {
            int rgb = pictures.get(i).getRGB(x, y);
            int[] expected = {rgb >> 16 & 0xff, rgb >> 8 & 0xff, rgb & 0xff};
            for (int c = 0; c < 3; c++) {
              assertEquals(expected[c], png.getInt(i, y, x, c), "image " + i + " at (" + x + ", " + y + "), channel " + c);
            }
          }
        }
      }
    }
  }

  @Test
  void augmentedBatchesEqualTheRecordProvidersForAnyReaderThreadsAndFromAStream() {
    List<Photo> photos = photos();
    Path rec = recordFile(photos);
    List<float[]> expected;
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).pathImgidx(dir.resolve("photos.idx"))
        .dataShape(3, 24, 24).batchSize(4).lastBatch(LastBatch.PARTIAL).shuffle(true).seed(SEED).augment(AUGMENT).normalize(NORMALIZE).build()) {
      expected = epochs(p, "data", ImageRecordProvider.LABEL_NAME);
    }
    for (int readers : new int[] {0, 3}) {
      try (PhotoProvider p = PhotoProvider.builder().samples(photos).batchSize(4).shuffle(true).seed(SEED)
          .augment(PhotoBatch.JPEG, AUGMENT).normalize(PhotoBatch.JPEG, NORMALIZE).readers(readers).build()) {
        assertSame(expected, epochs(p, PhotoBatch.JPEG, PhotoBatch.LABEL), readers + " readers");
      }
    }
    List<float[]> inOrder;
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).pathImgidx(dir.resolve("photos.idx"))
        .dataShape(3, 24, 24).batchSize(4).lastBatch(LastBatch.PARTIAL).seed(SEED).augment(AUGMENT).normalize(NORMALIZE).build()) {
      inOrder = epochs(p, "data", ImageRecordProvider.LABEL_NAME);
    }
    try (PhotoProvider p = PhotoProvider.builder().streaming(photos).batchSize(4).seed(SEED)
        .augment(PhotoBatch.JPEG, AUGMENT).normalize(PhotoBatch.JPEG, NORMALIZE).build()) {
      assertSame(inOrder, epochs(p, PhotoBatch.JPEG, PhotoBatch.LABEL), "a stream");
    }
  }

  @Test
  void aBrokenImageIsNamedAndCountedByTheBadSampleBudget() {
    List<Photo> photos = new ArrayList<>(photos());
    photos.set(5, new Photo("not an image".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 2));
    try (PhotoProvider p = PhotoProvider.builder().samples(photos).batchSize(4).build()) {
      RuntimeException e = assertThrows(RuntimeException.class, () -> p.forEach(b -> { }));
      assertTrue(e.getMessage().startsWith("field 'jpeg' of sample 5: "), e.getMessage());
    }
    try (PhotoProvider p = PhotoProvider.builder().samples(photos).batchSize(4).badSamples(BadSamples.skip(1)).build();
        BatchIterator<PhotoBatch> it = p.iterator()) {
      long rows = 0;
      while (it.hasNext()) {
        rows += it.next().countSamples();
      }
      assertEquals(IMAGES - 1, rows, "the broken image's row is left out");
      List<PipelineStats.BadSample> bad = PipelineStats.of(it).badSamples();
      assertEquals(1, bad.size());
      assertEquals(5, bad.get(0).sample());
      assertTrue(bad.get(0).cause().getMessage().startsWith("field 'jpeg' of sample 5: "), bad.get(0).cause().getMessage());
    }
  }

  @Test
  void settingsNamingAMemberThatIsNoImageAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PhotoProvider.builder()
        .samples(photos()).batchSize(4).augment(PhotoBatch.LABEL, a -> a.randMirror(true)).build());
    assertEquals("augment and normalize name encoded images; 'softmax_label' is not one in PhotoProvider (its encoded"
        + " images: [jpeg], all fields: [jpeg, softmax_label])", e.getMessage());
  }

  @Test
  void aShardSetOfTheSamplesStoresTheEncodedBytesAndDecodesThemAsTheListDoes() throws IOException {
    List<Photo> photos = photos();
    String set = dir.resolve("photos-set").toString();
    dev.minibatch.shards.ShardSet written = PhotoShards.write(photos, set);
    assertEquals(IMAGES, written.samples());
    // The column holds the JPEGs as they are, not decoded pixels: the files are about the JPEGs' size.
    long jpegBytes = photos.stream().mapToLong(p -> p.jpeg().length).sum();
    long fileBytes;
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(Path.of(set))) {
      fileBytes = files.filter(f -> f.toString().endsWith(".parquet")).mapToLong(f -> f.toFile().length()).sum();
    }
    assertTrue(fileBytes >= jpegBytes && fileBytes < jpegBytes + 16 * 1024, fileBytes + " bytes of files for "
        + jpegBytes + " bytes of JPEGs (decoded they would be " + IMAGES * 3 * 24 * 24 * 4 + ")");
    String index = java.nio.file.Files.readString(Path.of(set, "shards.index"));
    assertTrue(index.contains("encoding=IMAGE_RGB"), index);
    List<float[]> fromList;
    try (PhotoProvider p = PhotoProvider.builder().samples(photos).batchSize(4).shuffle(true).seed(SEED)
        .augment(PhotoBatch.JPEG, AUGMENT).normalize(PhotoBatch.JPEG, NORMALIZE).build()) {
      fromList = epochs(p, PhotoBatch.JPEG, PhotoBatch.LABEL);
    }
    for (int readers : new int[] {0, 3}) {
      try (PhotoProvider p = PhotoProvider.builder().shards(dev.minibatch.shards.ShardProvider.builder(set)
          .shuffleWindow(IMAGES)).batchSize(4).shuffle(true).seed(SEED).augment(PhotoBatch.JPEG, AUGMENT)
          .normalize(PhotoBatch.JPEG, NORMALIZE).readers(readers).build()) {
        List<float[]> got = epochs(p, PhotoBatch.JPEG, PhotoBatch.LABEL);
        assertEquals(fromList.size(), got.size());
        // The shard set's order is its own (a window shuffle); the draws are the samples': compare by label and pixels.
        assertSameBatchesAsSets(fromList, got, readers + " readers");
      }
    }
  }

  /** The same (pixels, label) rows, whatever their order in each epoch. */
  private static void assertSameBatchesAsSets(List<float[]> expected, List<float[]> got, String what) {
    assertEquals(rows(expected, 0, expected.size() / 2), rows(got, 0, got.size() / 2), what + ", epoch 1");
    assertEquals(rows(expected, expected.size() / 2, expected.size()), rows(got, got.size() / 2, got.size()),
        what + ", epoch 2");
  }

  private static java.util.Set<String> rows(List<float[]> arrays, int from, int to) {
    java.util.Set<String> out = new java.util.HashSet<>();
    for (int i = from; i < to; i += 2) {
      float[] data = arrays.get(i);
      float[] labels = arrays.get(i + 1);
      int per = data.length / labels.length;
      for (int r = 0; r < labels.length; r++) {
        out.add(labels[r] + ":" + java.util.Arrays.hashCode(java.util.Arrays.copyOfRange(data, r * per, (r + 1) * per)));
      }
    }
    return out;
  }

  @Test
  void moreSamplesThanOneWriteListAndAnImageWithoutBytesNamedByItsPlace() throws IOException {
    List<Thumbnail> thumbs = new ArrayList<>();
    List<BufferedImage> pictures = new ArrayList<>();
    for (int i = 0; i < 1100; i++) {
      BufferedImage p = picture(i % 7, 8, 8);
      pictures.add(p);
      thumbs.add(new Thumbnail(encode(p, "png")));
    }
    String set = dir.resolve("thumbs").toString();
    ThumbnailShards.write(thumbs, set);
    // The 1 100 samples, written in two lists of 1 024 and 76, read back in order: each its own pixels.
    try (ThumbnailProvider p = ThumbnailProvider.builder().shards(set).batchSize(100).elasticShards(false).build()) {
      int i = 0;
      for (ThumbnailBatch b : p) {
        for (int r = 0; r < b.countSamples(); r++, i++) {
          int rgb = pictures.get(i).getRGB(3, 5);
          assertEquals(rgb >> 16 & 0xff, b.getPng().getInt(r, 5, 3, 0), "sample " + i);
        }
      }
      assertEquals(1100, i);
    }
    thumbs.set(1050, new Thumbnail(new byte[0]));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ThumbnailShards.write(thumbs, dir.resolve("broken").toString()));
    assertEquals("sample 1050's encoded image 'png' has no bytes; expected an encoded image (JPEG, PNG)", e.getMessage());
  }
}
