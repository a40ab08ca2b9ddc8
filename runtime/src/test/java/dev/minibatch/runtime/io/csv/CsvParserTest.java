package dev.minibatch.runtime.io.csv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.TestFiles;
import dev.minibatch.runtime.io.csv.CsvTable.NumericArray;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvParserTest {
  @TempDir Path dir;

  static final Path IRIS = TestFiles.resource("csv/iris.csv");
  static final Path OPTDIGITS = TestFiles.resource("csv/optdigits.tes");

  static final CsvFormat IRIS_FORMAT = CsvFormat.builder().header(true).labelColumn(4).classLabels(true).build();

  @Test
  void irisHas150RowsOf4FeaturesAnd50OfEachSpecies() {
    CsvTable t = CsvParser.parse(IRIS, IRIS_FORMAT);
    assertEquals(150, t.rows());
    assertEquals(4, t.columns());
    assertEquals(List.of("setosa", "versicolor", "virginica"), t.classNames());
    int[] labels = Objects.requireNonNull(t.labels()).toIntArray();
    assertArrayEquals(new int[] {50, 50, 50}, histogram(labels, 3));
    assertEquals(DType.FLOAT32, t.data().dtype());
    assertArrayEquals(new float[] {5.1f, 3.5f, 1.4f, 0.2f}, Arrays.copyOf(t.data().toFloatArray(), 4));
    // Fisher's iris (corrected rows, as scikit-learn): the published column means.
    double[] means = new double[4];
    for (int i = 0; i < t.data().length(); i++) {
      means[i % 4] += t.data().getDouble(i) / 150;
    }
    assertArrayEquals(new double[] {5.843333, 3.057333, 3.758, 1.199333}, means, 1e-5);
  }

  @Test
  void optdigitsTestSetMatchesScikitLearnDigits() {
    CsvFormat f = CsvFormat.builder().dtype(DType.INT32).labelColumn(-1).build();
    CsvTable t = CsvParser.parse(OPTDIGITS, f);
    assertEquals(1797, t.rows());
    assertEquals(64, t.columns());
    int[] labels = Objects.requireNonNull(t.labels()).toIntArray();
    assertArrayEquals(new int[] {178, 182, 177, 183, 181, 182, 181, 179, 174, 180}, histogram(labels, 10));
    assertArrayEquals(new int[] {0, 0, 5, 13, 9, 1, 0, 0, 0, 0, 13, 15, 10, 15, 5, 0, 0, 3, 15, 2, 0, 11, 8, 0, 0, 4, 12, 0,
        0, 8, 8, 0, 0, 5, 8, 0, 0, 9, 8, 0, 0, 4, 11, 0, 1, 12, 7, 0, 0, 2, 14, 5, 10, 12, 0, 0, 0, 0, 6, 13, 10, 0, 0, 0},
        Arrays.copyOf(t.data().toIntArray(), 64));
    assertEquals(0, labels[0]);
    for (int v : t.data().toIntArray()) {
      assertTrue(v >= 0 && v <= 16, "pixel count " + v);
    }
  }

  @Test
  void parallelChunkedParseIsIdenticalToSequential() {
    for (DType dtype : new DType[] {DType.FLOAT32, DType.INT32, DType.INT64, DType.FLOAT64}) {
      CsvFormat seq = CsvFormat.builder().dtype(dtype).labelColumn(64).threads(1).build();
      CsvFormat par = seq.toBuilder().threads(7).minBlockBytes(1000).build();
      assertSame(CsvParser.parse(OPTDIGITS, seq), CsvParser.parse(OPTDIGITS, par));
    }
    CsvTable seqIris = CsvParser.parse(IRIS, IRIS_FORMAT.toBuilder().threads(1).build());
    CsvTable parIris = CsvParser.parse(IRIS, IRIS_FORMAT.toBuilder().threads(5).minBlockBytes(100).build());
    assertSame(seqIris, parIris);
  }

  @Test
  void classNamesAreNumberedByFirstAppearanceEvenWhenChunksSeeThemInAnotherOrder() throws IOException {
    // Block 2 sees "b" before "a"; the whole file sees "c" first.
    StringBuilder sb = new StringBuilder();
    String[] order = {"c", "c", "c", "a", "b", "b", "a", "c"};
    for (int i = 0; i < 400; i++) {
      sb.append(i).append(',').append(order[i * order.length / 400]).append('\n');
    }
    Path f = dir.resolve("names.csv");
    Files.writeString(f, sb);
    CsvFormat base = CsvFormat.builder().labelColumn(1).classLabels(true).threads(1).build();
    CsvTable seq = CsvParser.parse(f, base);
    CsvTable par = CsvParser.parse(f, base.toBuilder().threads(4).minBlockBytes(50).build());
    assertEquals(List.of("c", "a", "b"), seq.classNames());
    assertSame(seq, par);
  }

  @Test
  void bomCrlfQuotesAndTrailingBlankLinesReadLikeThePlainFile() throws IOException {
    String plain = Files.readString(IRIS);
    StringBuilder messy = new StringBuilder("\uFEFF");
    for (String line : plain.split("\n")) {
      String[] f = line.split(",");
      messy.append(f[0]).append(", \"").append(f[1]).append("\" ,").append(f[2]).append(',').append(f[3])
          .append(",\"").append(f[4]).append("\"\r\n");
    }
    messy.append("\r\n\r\n");
    Path f = dir.resolve("iris-messy.csv");
    Files.write(f, messy.toString().getBytes(StandardCharsets.UTF_8));
    assertSame(CsvParser.parse(IRIS, IRIS_FORMAT), CsvParser.parse(f, IRIS_FORMAT));
  }

  @Test
  void quotedFieldsMayHoldDelimitersLineBreaksAndDoubledQuotes() throws IOException {
    Path f = dir.resolve("q.csv");
    Files.writeString(f, "x,name\n1,\"a, \"\"big\"\"\nclass\"\n2,plain\n3,\"a, \"\"big\"\"\nclass\"\n");
    CsvTable t = CsvParser.parse(f, CsvFormat.builder().header(true).labelColumn(1).classLabels(true).build());
    assertEquals(List.of("a, \"big\"\nclass", "plain"), t.classNames());
    assertArrayEquals(new int[] {0, 1, 0}, Objects.requireNonNull(t.labels()).toIntArray());
    assertArrayEquals(new float[] {1, 2, 3}, t.data().toFloatArray());
  }

  @Test
  void aQuotedLineBreakAcrossAChunkCutStillParsesLikeSequential() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      sb.append(i).append(",\"name\n").append("x".repeat(i % 7)).append("\n\"\n");
    }
    Path f = dir.resolve("multiline.csv");
    Files.writeString(f, sb);
    CsvFormat seq = CsvFormat.builder().labelColumn(1).classLabels(true).threads(1).build();
    CsvTable a = CsvParser.parse(f, seq);
    CsvTable b = CsvParser.parse(f, seq.toBuilder().threads(6).minBlockBytes(64).build());
    assertEquals(200, a.rows());
    assertEquals(7, a.classNames().size());
    assertSame(a, b);
  }

  @Test
  void int64AndInt32AreExactAndFloat32IsCorrectlyRounded() throws IOException {
    Path f = dir.resolve("ints.csv");
    Files.writeString(f, "9007199254740993,-9223372036854775808\n9223372036854775807,+42\n");
    CsvTable t = CsvParser.parse(f, CsvFormat.builder().dtype(DType.INT64).build());
    assertArrayEquals(new long[] {9007199254740993L, Long.MIN_VALUE, Long.MAX_VALUE, 42}, t.data().toLongArray());

    Path g = dir.resolve("int32.csv");
    Files.writeString(g, "2147483647,-2147483648\n");
    assertArrayEquals(new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE},
        CsvParser.parse(g, CsvFormat.builder().dtype(DType.INT32).build()).data().toIntArray());
    Files.writeString(g, "2147483648,1\n");
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> CsvParser.parse(g, CsvFormat.builder().dtype(DType.INT32).build()));
    assertTrue(e.getMessage().contains("cannot parse '2147483648' as int32"), e.getMessage());
    Files.writeString(g, "9223372036854775808\n");
    assertThrows(FileFormatException.class, () -> CsvParser.parse(g, CsvFormat.builder().dtype(DType.INT64).build()));

    SplittableRandom rnd = new SplittableRandom(7);
    StringBuilder sb = new StringBuilder();
    String[] texts = new String[3000];
    for (int i = 0; i < texts.length; i++) {
      texts[i] = i % 3 == 0 ? Double.toString(rnd.nextDouble() * 1000)
          : i % 3 == 1 ? String.format("%.3f", rnd.nextDouble() - 0.5) : (rnd.nextInt(1 << 26) + "e-" + rnd.nextInt(30));
      sb.append(texts[i]).append(i % 10 == 9 ? "\n" : ",");
    }
    Path h = dir.resolve("floats.csv");
    Files.writeString(h, sb);
    float[] parsed = CsvParser.parse(h, CsvFormat.defaults()).data().toFloatArray();
    for (int i = 0; i < texts.length; i++) {
      assertEquals(Float.parseFloat(texts[i]), parsed[i], texts[i]);
    }
    double[] parsedD = doubles(CsvParser.parse(h, CsvFormat.builder().dtype(DType.FLOAT64).build()).data());
    for (int i = 0; i < texts.length; i++) {
      assertEquals(Double.parseDouble(texts[i]), parsedD[i], texts[i]);
    }
  }

  @Test
  void float32RecordsOnTheFastPathAndOffItEqualJavasCorrectlyRoundedParse() throws IOException {
    // Rows mix short decimals (fast path) with forms only the general path takes: spaces, quotes,
    // exponents, '+', long mantissas, CRLF, blank lines. Java's Float.parseFloat is the oracle.
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
    String[] odd = {" 0.5", "\"1.25\"", "1e-3", "+7", "123456789.5", "0.000000012", "-3.4028235E38", "7 "};
    StringBuilder csv = new StringBuilder();
    List<String[]> rows = new java.util.ArrayList<>();
    for (int r = 0; r < 400; r++) {
      String[] fields = new String[6];
      for (int c = 0; c < 6; c++) {
        int kind = rnd.nextInt(10);
        fields[c] = kind == 0 ? odd[rnd.nextInt(odd.length)]
            : (rnd.nextBoolean() ? "-" : "") + rnd.nextInt(10000) + (kind < 5 ? "." + rnd.nextInt(1000) : "");
      }
      rows.add(fields);
      csv.append(String.join(",", fields)).append(r % 7 == 0 ? "\r\n" : "\n");
      if (r % 50 == 0) {
        csv.append("\n");
      }
    }
    Path f = dir.resolve("mixed.csv");
    Files.writeString(f, csv.toString());
    for (int threads : new int[] {1, 3}) {
      CsvTable t = CsvParser.parse(f, CsvFormat.builder().labelColumn(5).threads(threads).minBlockBytes(1500).build());
      assertEquals(400, t.rows());
      for (int r = 0; r < 400; r++) {
        for (int c = 0; c < 5; c++) {
          String text = rows.get(r)[c].trim().replace("\"", "");
          assertEquals(Float.parseFloat(text), (float) t.data().getDouble(r * 5 + c), "row " + r + " field " + text);
        }
        assertEquals(Float.parseFloat(rows.get(r)[5].trim().replace("\"", "")), (float) t.labels().getDouble(r));
      }
    }
  }

  @Test
  void wrongRowLengthNamesFileLineAndBothCounts() throws IOException {
    Path f = dir.resolve("short.csv");
    Files.writeString(f, "a,b,c\n1,2,3\n4,5,6\n\n7,8\n");
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> CsvParser.parse(f, CsvFormat.builder().header(true).build()));
    assertEquals(f + ":5: row has 2 fields, expected 3", e.getMessage());
    // With an expected count from the data shape, even the first row is checked.
    e = assertThrows(FileFormatException.class, () -> CsvParser.parse(f, CsvFormat.builder().header(true).build(), 4));
    assertEquals(f + ":2: row has 3 fields, expected 4", e.getMessage());
  }

  @Test
  void wrongRowLengthIsFoundAtTheRightLineWhenParsedInParallel() throws IOException {
    List<String> lines = Files.readAllLines(OPTDIGITS);
    lines.set(1500, lines.get(1500) + ",3");
    Path f = dir.resolve("bad-digits.csv");
    Files.write(f, lines);
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> CsvParser.parse(f, CsvFormat.builder().threads(4).minBlockBytes(1000).build()));
    assertEquals(f + ":1501: row has 66 fields, expected 65", e.getMessage());
  }

  @Test
  void unparsableFieldNamesFileLineAndColumn() throws IOException {
    Path f = dir.resolve("nan.csv");
    Files.writeString(f, "1,2,3\r\n4,five,6\r\n");
    FileFormatException e = assertThrows(FileFormatException.class, () -> CsvParser.parse(f, CsvFormat.defaults()));
    assertEquals(f + ":2: column 1 (0-based): cannot parse 'five' as float32", e.getMessage());
    Files.writeString(f, "1,,3\n");
    e = assertThrows(FileFormatException.class, () -> CsvParser.parse(f, CsvFormat.defaults()));
    assertEquals(f + ":1: empty field in column 1 (0-based)", e.getMessage());
    Files.writeString(f, "1.5,2\n");
    e = assertThrows(FileFormatException.class, () -> CsvParser.parse(f, CsvFormat.builder().dtype(DType.INT32).build()));
    assertEquals(f + ":1: column 0 (0-based): cannot parse '1.5' as int32", e.getMessage());
  }

  @Test
  void otherMalformedInputs() throws IOException {
    Path f = dir.resolve("bad.csv");
    Files.writeString(f, "1,\"open\n2,3\n");
    FileFormatException e = assertThrows(FileFormatException.class,
        () -> CsvParser.parse(f, CsvFormat.builder().labelColumn(1).classLabels(true).build()));
    assertTrue(e.getMessage().contains("quoted field is not closed"), e.getMessage());
    Files.writeString(f, "1,\"a\"b\n");
    e = assertThrows(FileFormatException.class, () -> CsvParser.parse(f, CsvFormat.builder().labelColumn(1).classLabels(true).build()));
    assertTrue(e.getMessage().contains("unexpected 'b' after the closing quote"), e.getMessage());
    e = assertThrows(FileFormatException.class, () -> CsvParser.parse(IRIS,
        CsvFormat.builder().header(true).labelColumn(4).classNames(List.of("setosa", "versicolor")).build()));
    assertTrue(e.getMessage().startsWith(IRIS + ":102: column 4 (0-based): unknown class name 'virginica'"), e.getMessage());
    e = assertThrows(FileFormatException.class, () -> CsvParser.parse(IRIS, CsvFormat.builder().header(true).labelColumn(7).build()));
    assertTrue(e.getMessage().contains("label column 7 does not exist: rows have 5 fields"), e.getMessage());
  }

  @Test
  void fixedClassNamesKeepTheirIndicesAndEmptyFilesGiveEmptyTables() throws IOException {
    CsvTable t = CsvParser.parse(IRIS, CsvFormat.builder().header(true).labelColumn(4)
        .classNames(List.of("virginica", "setosa", "versicolor")).build());
    int[] labels = Objects.requireNonNull(t.labels()).toIntArray();
    assertEquals(1, labels[0]);
    assertEquals(0, labels[149]);
    Path f = dir.resolve("empty.csv");
    Files.writeString(f, "a,b\n\n");
    CsvTable empty = CsvParser.parse(f, CsvFormat.builder().header(true).build());
    assertEquals(0, empty.rows());
    assertNull(empty.labels());
  }

  /**
   * The parser reads a file in pieces and carries a record cut by a piece's end over to the next
   * one. With pieces of 1 to 13 bytes every record, field, quote, CR/LF and byte order mark is cut
   * somewhere; the table must be the one read from a single window, known here by construction.
   */
  @Test
  void recordsCutAtAnyByteByThePieceSizeParseAsOneWindow() {
    SplittableRandom r = new SplittableRandom(25);
    StringBuilder sb = new StringBuilder("\uFEFFa,b,label\r\n");
    int rows = 60;
    float[] data = new float[rows * 2];
    int[] labels = new int[rows];
    String[] names = {"plain", "with \"\"quotes\"\"", "two\nlines"};
    for (int i = 0; i < rows; i++) {
      int a = r.nextInt(-999, 1000);
      float b = r.nextInt(0, 10_000) / 100f;
      int k = r.nextInt(3);
      data[2 * i] = a;
      data[2 * i + 1] = b;
      labels[i] = k;
      sb.append(i % 3 == 0 ? " " + a + " " : String.valueOf(a)).append(',')
          .append(i % 4 == 0 ? "\"" + String.format(java.util.Locale.ROOT, "%.2f", b) + "\"" : String.format(java.util.Locale.ROOT, "%.2f", b))
          .append(",\"").append(names[k]).append('"').append(i % 2 == 0 ? "\r\n" : "\n");
      if (i % 11 == 0) {
        sb.append(i % 2 == 0 ? "\n" : "  \r\n");
      }
    }
    byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
    CsvFormat format = CsvFormat.builder().header(true).labelColumn(2).classLabels(true).threads(1).build();
    // The labels are numbered by first appearance.
    List<String> order = new java.util.ArrayList<>();
    for (int l : labels) {
      String n = names[l].replace("\"\"", "\"");
      if (!order.contains(n)) {
        order.add(n);
      }
    }
    int[] expectedLabels = new int[rows];
    for (int i = 0; i < rows; i++) {
      expectedLabels[i] = order.indexOf(names[labels[i]].replace("\"\"", "\""));
    }
    for (int piece = 1; piece <= 13; piece++) {
      for (CsvFormat f : List.of(format, format.toBuilder().threads(3).minBlockBytes(100).build())) {
        CsvTable t = CsvParser.parse("messy.csv", bytes, f, -1, piece);
        assertEquals(rows, t.rows(), "piece " + piece);
        assertArrayEquals(data, t.data().toFloatArray(), "piece " + piece);
        assertArrayEquals(expectedLabels, Objects.requireNonNull(t.labels()).toIntArray(), "piece " + piece);
        assertEquals(order, t.classNames(), "piece " + piece);
      }
    }
  }

  /** An error found in a later piece names the line of the whole file, not of the piece. */
  @Test
  void anErrorInALaterPieceNamesTheFilesLine() {
    StringBuilder sb = new StringBuilder("x,y\n");
    for (int i = 0; i < 40; i++) {
      sb.append(i).append(",\"").append(i).append("\"\n");
    }
    sb.append("\n7,oops\n1,2\n");
    byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
    // Line 1 is the header, lines 2..41 the rows, 42 blank, 43 the bad row.
    for (int piece : new int[] {3, 16, 1 << 20}) {
      FileFormatException e = assertThrows(FileFormatException.class,
          () -> CsvParser.parse("bad.csv", bytes, CsvFormat.builder().header(true).build(), -1, piece));
      assertTrue(e.getMessage().startsWith("bad.csv:43: column 1 (0-based): cannot parse 'oops'"), e.getMessage());
    }
  }

  static void assertSame(CsvTable expected, CsvTable actual) {
    assertEquals(expected.rows(), actual.rows());
    assertEquals(expected.columns(), actual.columns());
    assertEquals(expected.classNames(), actual.classNames());
    assertEquals(expected.data().dtype(), actual.data().dtype());
    assertArrayEquals(doubles(expected.data()), doubles(actual.data()));
    assertArrayEquals(expected.data().toLongArray(), actual.data().toLongArray());
    NumericArray el = expected.labels();
    NumericArray al = actual.labels();
    assertEquals(el == null, al == null);
    if (el != null && al != null) {
      assertArrayEquals(doubles(el), doubles(al));
    }
  }

  static double[] doubles(NumericArray a) {
    double[] out = new double[a.length()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.getDouble(i);
    }
    return out;
  }

  static int[] histogram(int[] labels, int classes) {
    int[] h = new int[classes];
    for (int l : labels) {
      h[l]++;
    }
    return h;
  }
}
