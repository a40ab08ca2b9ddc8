package dev.minibatch.runtime.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.runtime.Settings;
import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.io.csv.CsvFileOptions;
import dev.minibatch.runtime.io.hdf5.Hdf5Options;
import dev.minibatch.runtime.io.mnist.IdxOptions;
import dev.minibatch.runtime.io.csv.CsvProvider;
import dev.minibatch.runtime.io.hdf5.Hdf5Provider;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import dev.minibatch.runtime.io.mnist.MnistProvider;
import dev.minibatch.shape.Shape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built-in {@link Format}s on the real test files, against what their sources document: MNIST
 * t10k holds 10 000 images of 28 × 28; iris 150 rows of 4 values in 3 classes of 50; dmlc's
 * sample.rec 10 records with labels k % 2 whose payloads are text, not images.
 */
class FormatTest {
  private static final List<Format> FORMATS = List.of(MnistProvider.format(), Hdf5Provider.format(),
      ImageRecordProvider.format(), CsvProvider.format());

  private static List<String> recognising(Path file) {
    byte[] head = Format.head(file);
    List<String> names = new ArrayList<>();
    for (Format f : FORMATS) {
      if (f.probe(file, head)) {
        names.add(f.name());
      }
    }
    return names;
  }

  @Test
  void eachFileIsRecognisedByItsOwnFormatOnly() {
    assertEquals(List.of("idx", "hdf5", "recordio", "csv"), FORMATS.stream().map(Format::name).toList());
    assertEquals(List.of("idx"), recognising(TestFiles.resource("mnist/t10k-images-idx3-ubyte.gz")));
    assertEquals(List.of("idx"), recognising(TestFiles.resource("mnist/t10k-labels-idx1-ubyte.gz")));
    assertEquals(List.of("hdf5"), recognising(TestFiles.resource("hdf5/test_file.hdf5")));
    assertEquals(List.of("recordio"), recognising(TestFiles.resource("recordio/sample.rec")));
    assertEquals(List.of("csv"), recognising(TestFiles.resource("csv/iris.csv")));
  }

  @Test
  void describeCountsWhatTheSourcesDocument() {
    Format.Options o = Format.Options.defaults();
    assertEquals("10000", MnistProvider.format().describe(TestFiles.resource("mnist/t10k-images-idx3-ubyte.gz"), o)
        .field("samples"));
    Format.Report iris = CsvProvider.format().describe(TestFiles.resource("csv/iris.csv"), o);
    assertEquals("150", iris.field("rows"));
    assertEquals("(150, 4) FLOAT32, 4 values per row", iris.field("data"));
    assertEquals("10", ImageRecordProvider.format().describe(TestFiles.resource("recordio/sample.rec"), o)
        .field("records"));
  }

  @Test
  void schemaIsWhatOneBatchHolds() {
    Format.Options o = Format.Options.builder().settings(Settings.builder().batchSize(50).build()).build();
    List<DataDesc> iris = CsvProvider.format().schema(TestFiles.resource("csv/iris.csv"), o);
    assertEquals(2, iris.size());
    assertEquals(Shape.of(50L, 4L), iris.get(0).shape());
    DataDesc digits = MnistProvider.format().schema(TestFiles.resource("mnist/t10k-images-idx3-ubyte.gz"), o).get(0);
    assertEquals(50L, digits.shape().dim(0));
    assertEquals(28 * 28, digits.sampleShape().elementCount());
  }

  @Test
  void providerDeliversEveryRecord() {
    Format.Options o = Format.Options.builder().settings(Settings.builder().batchSize(40).shuffle(true).seed(3).build()).build();
    try (BatchProvider<? extends Batch> p = CsvProvider.format().provider(TestFiles.resource("csv/iris.csv"), o)) {
      int samples = 0;
      for (Batch b : p) {
        samples += b.countSamples();
      }
      assertEquals(150, samples);
    }
  }

  @Test
  void everySettingOfTheOptionsReachesTheProvider() {
    // iris: 150 rows; part 1 of 2 is rows 75..149; batches of 40 with DISCARD: 1 batch of 40 (35 dropped).
    Settings s = Settings.builder().batchSize(40).lastBatch(dev.minibatch.LastBatch.DISCARD).shard(2, 1).seed(9).build();
    Format.Options o = Format.Options.builder().settings(s).build();
    // MNIST t10k: 10 000 images; part 1 is 5 000, 125 full batches of 40.
    Map<String, Integer> partOf = Map.of("csv/iris.csv", 75, "mnist/t10k-images-idx3-ubyte.gz", 5000);
    for (String name : partOf.keySet()) {
      Format f = name.startsWith("csv") ? CsvProvider.format() : MnistProvider.format();
      try (BatchProvider<? extends Batch> p = f.provider(TestFiles.resource(name), o)) {
        int batches = 0;
        int samples = 0;
        for (Batch b : p) {
          batches++;
          samples += b.countSamples();
        }
        int part = partOf.get(name);
        assertEquals(part / 40, batches, name);
        assertEquals(part / 40 * 40, samples, name);
      }
    }
    assertEquals(128, Format.Options.defaults().batchSize());
    assertEquals(java.util.OptionalLong.empty(), Format.Options.defaults().settings().seed());
  }

  @Test
  void validateReportsEachProblemWithItsLocation(@TempDir Path dir) throws IOException {
    Path csv = Files.writeString(dir.resolve("bad.csv"), "1,2,3\n4,5\n7,8,NaN\n");
    Format.Problems problems = new Format.Problems(10);
    CsvProvider.format().validate(csv, Format.Options.builder().with(new CsvFileOptions(false, null, null, ',')).build(),
        problems);
    List<String> found = problems.list().stream().map(Format.Problems.Problem::toString).toList();
    assertEquals(2, found.size(), found.toString());
    assertTrue(found.get(0).startsWith(csv + ":2: "), found.get(0));
    assertTrue(found.get(1).startsWith(csv + ":3"), found.get(1));
    assertTrue(found.get(1).contains("NaN"), found.get(1));

    Format.Problems records = new Format.Problems(100);
    ImageRecordProvider.format().validate(TestFiles.resource("recordio/sample.rec"), Format.Options.defaults(), records);
    assertEquals(10, records.list().size(), "each of the 10 text payloads is not an image: " + records.list());
    assertTrue(records.list().get(0).location().contains("record 0"), records.list().get(0).toString());

    Format.Problems full = new Format.Problems(1);
    ImageRecordProvider.format().validate(TestFiles.resource("recordio/sample.rec"), Format.Options.defaults(), full);
    assertEquals(1, full.list().size());
    assertTrue(full.isFull());
  }

  @Test
  void aFileOfAnotherFormatIsAFileFormatErrorNamingTheFile() {
    Path iris = TestFiles.resource("csv/iris.csv");
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> Hdf5Provider.format().describe(iris, Format.Options.defaults()));
    assertTrue(e.getMessage().contains(iris.toString()), e.getMessage());
  }

  @Test
  void everyBuiltInIsAServiceInTheDocumentedProbeOrder() {
    List<Format> found = new ArrayList<>();
    ServiceLoader.load(Format.class, FormatTest.class.getClassLoader()).forEach(found::add);
    found.sort(Comparator.comparingInt(Format::probeOrder).thenComparing(Format::name));
    assertEquals(List.of("idx", "hdf5", "recordio", "folder", "csv"), found.stream().map(Format::name).toList());
    // The services and the providers' accessors are the same formats.
    assertEquals(MnistProvider.format().getClass(), found.get(0).getClass());
    assertEquals(CsvProvider.format().getClass(), found.get(4).getClass());
  }

  @Test
  void optionsCarryEachFormatsOwnOptionsByType(@TempDir Path dir) throws IOException {
    Format.Options o = Format.Options.builder().with(new Hdf5Options(List.of("a")))
        .with(new CsvFileOptions(true, 0, false, ';')).with(new CsvFileOptions(null, null, null, '|')).build();
    assertEquals(List.of("a"), o.get(Hdf5Options.class, Hdf5Options.ALL).datasets());
    assertEquals('|', o.get(CsvFileOptions.class, CsvFileOptions.DETECTED).delimiter(), "the later value replaces");
    assertEquals(IdxOptions.DETECTED, o.get(IdxOptions.class, IdxOptions.DETECTED));
    // The delimiter given reaches the CSV format: ';' splits "1;2;3" into 3 values.
    Path semi = Files.writeString(dir.resolve("semi.csv"), "1;2;3\n4;5;6\n");
    Format.Report r = CsvProvider.format().describe(semi,
        Format.Options.builder().with(new CsvFileOptions(null, null, null, ';')).build());
    assertEquals("2", r.field("rows"));
    assertEquals("(2, 3) FLOAT32, 3 values per row", r.field("data"));
    assertThrows(FileFormatException.class, () -> CsvProvider.format().describe(semi, o), "'|' does not split it");
  }

  @Test
  void locationsAreLocalPathsOrUrisWithASchemeOfTwoOrMoreLetters() {
    assertTrue(Location.parse("data/train.csv").isLocal());
    assertEquals(Path.of("data/train.csv"), Location.parse("data/train.csv").path());
    assertTrue(Location.parse("C:/data/x.csv").isLocal(), "a drive letter is not a scheme");
    assertTrue(Location.parse("file:///tmp/set").isLocal());
    assertEquals(Path.of("/tmp/set"), Location.parse("file:///tmp/set").path());
    Location hdfs = Location.parse("hdfs://127.0.0.1:8020/sets/digits");
    assertTrue(!hdfs.isLocal());
    assertEquals("hdfs", hdfs.uri().getScheme());
    assertEquals("digits", hdfs.name());
    assertEquals("hdfs://127.0.0.1:8020/sets/digits", hdfs.toString());
    assertEquals(Map.of("k", "v"), hdfs.withProperties(Map.of("k", "v")).properties());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, hdfs::path);
    assertTrue(e.getMessage().startsWith("hdfs://127.0.0.1:8020/sets/digits: "), e.getMessage());
  }

  @Test
  void aLocalFormatDoesNotProbeAndRefusesARemoteLocation() {
    Location s3 = Location.parse("s3a://bucket/iris.csv");
    assertEquals(0, Format.head(s3).length);
    assertTrue(!CsvProvider.format().probe(s3, Format.head(s3)), "CSV takes any text, but not a remote location");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CsvProvider.format().describe(s3, Format.Options.defaults()));
    assertEquals("s3a://bucket/iris.csv: the csv format reads local files only", e.getMessage());
  }
}
