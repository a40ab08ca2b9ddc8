package dev.minibatch.shards;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder.BadSamples;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.image.EncodedImages;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import dev.minibatch.shards.servers.LoopbackHdfs;
import dev.minibatch.shards.servers.LoopbackS3;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A real MXNet record file ({@code recordio/benz_train.rec} of the shared data folder: 12 photos of
 * cars, 445x250 to 1920x800, some progressive JPEGs, each with 9 packed detection labels), read in
 * place (its licence forbids copying it into the repository: {@link SharedData}), written as a shard
 * set and read back. Every answer is computed here without the code under test: the records parsed
 * from the file's bytes, the labels also from the {@code .lst}, the pixels from OpenCV's {@code
 * imdecode} called directly. The same photos unpacked into a class folder give the same pixels; with
 * random resized crops and mirrors the set gives {@link ImageRecordProvider}'s batches over the file
 * for 1 and 3 reader threads and 2 trainers; a copy with one JPEG cut short loses that sample to the
 * bad-sample budget, named; and the set on HDFS and S3 gives the local batches.
 */
class RealRecordShardsTest {
  private static final String REC = "recordio/benz_train.rec";
  /** MXNet's detection records: header width, object width, image width and height, one box of 5. */
  private static final int LABELS = 9;
  private static final long SEED = 23;
  private static final int BATCH = 3;
  private static final int SIDE = 224;
  private static final Consumer<ImageRecordProvider.Augment> RRC = a -> a.randomResizedCrop(true).randMirror(true);
  private static final Consumer<ImageRecordProvider.Normalize> NORMALIZE =
      n -> n.meanRgb(123.68f, 116.28f, 103.53f).stdRgb(58.4f, 57.1f, 57.4f);

  private static Path rec;
  private static Path idx;
  private static List<Rec> records;

  @TempDir Path dir;

  /** One record of the file: its place, header id, packed labels and image bytes. */
  private record Rec(int index, long offset, long id, float[] labels, byte[] jpeg) {}

  @BeforeAll
  static void readTheFileIndependently() throws IOException {
    rec = SharedData.file(REC);
    idx = SharedData.file(REC.replace(".rec", ".idx"));
    records = parse(Files.readAllBytes(rec));
    assertEquals(12, records.size(), rec.toString());
    // The index lists every record's offset by key; the list every record's labels by index.
    List<String> index = Files.readAllLines(idx);
    List<String> list = Files.readAllLines(SharedData.file(REC.replace(".rec", ".lst")));
    assertEquals(records.size(), index.size());
    assertEquals(records.size(), list.size());
    Set<String> distinct = new HashSet<>();
    for (Rec r : records) {
      assertEquals(r.index(), r.id(), "record " + r.index() + "'s header id");
      assertEquals(r.index() + "\t" + r.offset(), index.get(r.index()));
      String[] fields = list.get(r.index()).split("\t");
      assertEquals(LABELS + 2, fields.length);
      assertEquals(r.index(), Integer.parseInt(fields[0]));
      float[] listed = new float[LABELS];
      for (int j = 0; j < LABELS; j++) {
        listed[j] = (float) Double.parseDouble(fields[1 + j]);
      }
      assertArrayEquals(listed, r.labels(), "record " + r.index() + ": the .lst's labels and the packed ones");
      distinct.add(Arrays.toString(r.labels()));
    }
    // Premise of the checks below: a sample is known by its labels.
    assertEquals(records.size(), distinct.size());
  }

  /**
   * The records of a RecordIO file, by the format (dmlc-core's recordio.h, MXNet's recordio.py): a
   * little-endian magic 0xced7230a, a length word (continuation flag in its top 3 bits), the payload
   * padded to 4 bytes; a payload is the image header (flag: the packed label count, label, id, id2),
   * the flag's labels as float32, then the image. This file's records are all whole (flag 0).
   */
  private static List<Rec> parse(byte[] file) {
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    List<Rec> out = new ArrayList<>();
    while (b.position() < file.length) {
      long offset = b.position();
      assertEquals(0xced7230a, b.getInt(), "magic at " + offset);
      int word = b.getInt();
      assertEquals(0, word >>> 29, "a whole record at " + offset);
      int length = word & ((1 << 29) - 1);
      ByteBuffer payload = b.slice(b.position(), length).order(ByteOrder.LITTLE_ENDIAN);
      b.position(b.position() + (length + 3 & ~3));
      int flag = payload.getInt();
      payload.getFloat();
      long id = payload.getLong();
      payload.getLong();
      assertEquals(LABELS, flag, "packed labels at " + offset);
      float[] labels = new float[flag];
      for (int j = 0; j < flag; j++) {
        labels[j] = payload.getFloat();
      }
      byte[] jpeg = new byte[payload.remaining()];
      payload.get(jpeg);
      out.add(new Rec(out.size(), offset, id, labels, jpeg));
    }
    return out;
  }

  /** An image decoded by OpenCV directly: rows x cols pixels, 3 bytes each in OpenCV's B, G, R order. */
  private record Decoded(int rows, int cols, byte[] bgr) {
    /** Channel {@code c} (0 red, 1 green, 2 blue) at (y, x). */
    int rgb(int c, int y, int x) {
      return bgr[(y * cols + x) * 3 + 2 - c] & 0xff;
    }
  }

  private static Decoded decode(byte[] encoded) {
    try (BytePointer p = new BytePointer(encoded); Mat bytes = new Mat(1, encoded.length, CV_8UC1, p);
        Mat image = imdecode(bytes, IMREAD_COLOR)) {
      assertEquals(3, image.channels());
      assertTrue(image.isContinuous());
      byte[] bgr = new byte[image.rows() * image.cols() * 3];
      image.data().get(bgr);
      return new Decoded(image.rows(), image.cols(), bgr);
    }
  }

  /**
   * Every image of {@code set}, unaugmented, in uint8 (rows x cols, the smallest photo's size) equals
   * its record's photo decoded here, cut to the centre window MXNet's crop takes (offsets (H - rows) /
   * 2 and (W - cols) / 2), in RGB order; each row's labels are {@code labels} of the sample.
   */
  private static void assertDecodesToThePhotos(String set, int rows, int cols, List<Decoded> photos,
      List<float[]> labels, String what) {
    try (ShardProvider p = ShardProvider.builder(set).batchSize(4).shuffle(false).readers(3).build()) {
      int sample = 0;
      for (NamedBatch b : p) {
        INDArray data = b.get("data");
        INDArray label = b.get("softmax_label"); // [4] for one label per sample, [4, 9] for packed ones
        float[] labelValues = ImageBatches.floats(label);
        int width = (int) (label.length() / 4);
        assertArrayEquals(new long[] {4, 3, rows, cols}, data.shape());
        int[] pixels = data.castTo(org.nd4j.linalg.api.buffer.DataType.INT32).dup('c').reshape(data.length())
            .toIntVector();
        for (int r = 0; r < b.rows(); r++, sample++) {
          assertArrayEquals(labels.get(sample), Arrays.copyOfRange(labelValues, r * width, (r + 1) * width),
              what + ": sample " + sample);
          Decoded photo = photos.get(sample);
          int y0 = (photo.rows() - rows) / 2;
          int x0 = (photo.cols() - cols) / 2;
          for (int c = 0; c < 3; c++) {
            for (int y = 0; y < rows; y++) {
              for (int x = 0; x < cols; x++) {
                int got = pixels[((r * 3 + c) * rows + y) * cols + x];
                if (got != photo.rgb(c, y0 + y, x0 + x)) {
                  assertEquals(photo.rgb(c, y0 + y, x0 + x), got, what + ": sample " + sample + ", channel " + c
                      + ", row " + y + ", column " + x);
                }
              }
            }
          }
        }
      }
      assertEquals(photos.size(), sample);
    }
  }

  @Test
  void everyRecordsLabelsAndPixelsComeBackFromTheSetWrittenFromTheFileAndFromAFolderOfItsPhotos()
      throws IOException {
    List<Decoded> photos = records.stream().map(r -> decode(r.jpeg())).toList();
    int rows = photos.stream().mapToInt(Decoded::rows).min().orElseThrow();
    int cols = photos.stream().mapToInt(Decoded::cols).min().orElseThrow();
    // The smallest photo is 445 x 250: the window is the whole of it and most of the others.
    assertEquals(List.of(250, 445), List.of(rows, cols));
    String fromRec = dir.resolve("from-rec").toString();
    ImageShardWriter.builder().dataShape(3, rows, cols).dtype(DType.UINT8).labelWidth(LABELS)
        .writer(ShardWriter.builder().samplesPerFile(5).build()).build().writeRecordIO(rec, idx, fromRec);
    assertDecodesToThePhotos(fromRec, rows, cols, photos, records.stream().map(Rec::labels).toList(), fromRec);

    // The photos unpacked into two class folders (even records in "a", odd in "b", named by record):
    // the folder's order is a's then b's, labelled 0 and 1.
    Path folder = dir.resolve("photos");
    List<Decoded> inFolderOrder = new ArrayList<>();
    List<float[]> classes = new ArrayList<>();
    for (int parity = 0; parity < 2; parity++) {
      Path classFolder = Files.createDirectories(folder.resolve(parity == 0 ? "a" : "b"));
      for (Rec r : records) {
        if (r.index() % 2 == parity) {
          Files.write(classFolder.resolve(String.format("car-%02d.jpg", r.index())), r.jpeg());
          inFolderOrder.add(photos.get(r.index()));
          classes.add(new float[] {parity});
        }
      }
    }
    String fromFolder = dir.resolve("from-folder").toString();
    ImageShardWriter.builder().dataShape(3, rows, cols).dtype(DType.UINT8).build().writeFolder(folder, fromFolder);
    assertDecodesToThePhotos(fromFolder, rows, cols, inFolderOrder, classes, fromFolder);
  }

  private String writeFromRec(String name) {
    String set = dir.resolve(name).toString();
    ImageShardWriter.builder().dataShape(3, SIDE, SIDE).labelWidth(LABELS)
        .writer(ShardWriter.builder().samplesPerFile(5).build()).build().writeRecordIO(rec, idx, set);
    return set;
  }

  private static ShardProvider.Builder shards(String set, int readers) {
    return ShardProvider.builder(set).batchSize(BATCH).seed(SEED).shuffle(false).lastBatch(LastBatch.PARTIAL)
        .augment("data", RRC).normalize("data", NORMALIZE).readers(readers);
  }

  @Test
  void randomResizedCropsAndMirrorsAreTheRecordProvidersForAnyReadersAndTrainers() {
    List<float[]> expected;
    try (ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(rec).pathImgidx(idx).labelWidth(LABELS)
        .dataShape(3, SIDE, SIDE).batchSize(BATCH).seed(SEED).shuffle(false).lastBatch(LastBatch.PARTIAL)
        .augment(RRC).normalize(NORMALIZE).preprocessThreads(1).build()) {
      expected = ImageBatches.read(p, 2, ImageRecordProvider.DATA_NAME, ImageRecordProvider.LABEL_NAME);
    }
    int perEpoch = records.size() / BATCH;
    assertEquals(2 * 2 * perEpoch, expected.size());
    // Not vacuous: the draws include the epoch, so the epochs' first batches differ.
    assertNotEquals(Arrays.toString(expected.get(0)), Arrays.toString(expected.get(2 * perEpoch)));
    String set = writeFromRec("rrc");
    for (int readers : new int[] {1, 3}) {
      try (ShardProvider p = shards(set, readers).build()) {
        assertSameBatches(expected, ImageBatches.read(p, 2, "data", "softmax_label"), "readers " + readers);
      }
    }
    // Two trainers: trainer t gets global batches t, t + 2, ... of each epoch, and between them every sample once.
    List<List<float[]>> trainers = new ArrayList<>();
    for (int rank = 0; rank < 2; rank++) {
      try (ShardProvider p = shards(set, 2).shard(2, rank).build()) {
        trainers.add(ImageBatches.read(p, 2, "data", "softmax_label"));
      }
    }
    for (int epoch = 0; epoch < 2; epoch++) {
      Set<String> seen = new HashSet<>();
      for (int global = 0; global < perEpoch; global++) {
        int rank = global % 2;
        int local = 2 * (epoch * perEpoch / 2 + global / 2);
        String where = "epoch " + epoch + ", trainer " + rank + ", global batch " + global;
        assertArrayEquals(expected.get(2 * (epoch * perEpoch + global)), trainers.get(rank).get(local), where);
        float[] labels = trainers.get(rank).get(local + 1);
        assertArrayEquals(expected.get(2 * (epoch * perEpoch + global) + 1), labels, where);
        for (int r = 0; r < BATCH; r++) {
          assertTrue(seen.add(Arrays.toString(Arrays.copyOfRange(labels, r * LABELS, (r + 1) * LABELS))), where);
        }
      }
      assertEquals(records.stream().map(r -> Arrays.toString(r.labels())).collect(java.util.stream.Collectors.toSet()),
          seen, "epoch " + epoch + ": the two trainers' samples");
    }
  }

  private static void assertSameBatches(List<float[]> expected, List<float[]> got, String what) {
    assertEquals(expected.size(), got.size(), what);
    for (int i = 0; i < got.size(); i++) {
      assertArrayEquals(expected.get(i), got.get(i), what + ", array " + i);
    }
  }

  @Test
  void aRealJpegCutShortCostsOneSampleOfTheBudgetAndIsNamed() {
    int broken = 4; // a progressive JPEG
    int cut = records.get(broken).jpeg().length / 2;
    List<EncodedImages.Image> images = new ArrayList<>();
    for (Rec r : records) {
      images.add(new EncodedImages.Image(r.index() == broken ? Arrays.copyOf(r.jpeg(), cut) : r.jpeg(), r.labels()));
    }
    String set = dir.resolve("broken").toString();
    ImageShardWriter.builder().dataShape(3, SIDE, SIDE).labelWidth(LABELS)
        .writer(ShardWriter.builder().samplesPerFile(3).build()).build().write(images, set);
    List<String> seen = new ArrayList<>();
    List<BadSample> bad;
    try (ShardProvider p = shards(set, 2).badSamples(BadSamples.skip(1)).build()) {
      PipelineIterator<NamedBatch> it = (PipelineIterator<NamedBatch>) p.iterator();
      while (it.hasNext()) {
        INDArray labels = it.next().get("softmax_label");
        for (int r = 0; r < labels.rows(); r++) {
          seen.add(Arrays.toString(labels.getRow(r).toFloatVector()));
        }
      }
      bad = PipelineStats.of(it).badSamples();
    }
    List<String> others = records.stream().filter(r -> r.index() != broken).map(r -> Arrays.toString(r.labels()))
        .toList();
    assertEquals(others, seen);
    assertEquals(1, bad.size());
    assertEquals(broken, bad.get(0).sample());
    FileFormatException e = assertInstanceOf(FileFormatException.class, bad.get(0).cause());
    // Sample 4 is row 1 of the second file (files of 3 samples).
    assertTrue(e.file().endsWith("broken/part-00001.parquet"), e.file());
    assertTrue(e.getMessage().contains("part-00001.parquet: row 1 (of the file), column 'data': corrupt JPEG: the "
        + cut + " bytes end inside"), e.getMessage());
  }

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

  /** The set copied file for file onto the server gives the local set's batches, for 1 and 3 readers. */
  private void sameBatchesAsLocal(URI root, Configuration conf) throws IOException {
    String local = writeFromRec("local");
    String remote = root.resolve("benz/").toString();
    ImageBatches.copySet(local, remote, conf);
    List<float[]> expected;
    try (ShardProvider p = shards(local, 1).build()) {
      expected = ImageBatches.read(p, 2, "data", "softmax_label");
    }
    for (int readers : new int[] {1, 3}) {
      try (ShardProvider p = shards(remote, readers).configuration(conf).build()) {
        assertSameBatches(expected, ImageBatches.read(p, 2, "data", "softmax_label"), remote + ", readers " + readers);
      }
    }
  }
}
