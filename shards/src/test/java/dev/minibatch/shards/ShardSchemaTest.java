package dev.minibatch.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.SampleSchema;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.Settings;
import dev.minibatch.shards.internal.GeneratedShards;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.shape.Shape;
import dev.minibatch.shards.ShardColumns.Column;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A shard set's columns are the writer's {@link SampleSchema} fields, in that type's one text form
 * in the index and in every file's metadata; an index of version 1 still reads; a provider reading
 * the set must agree with it on each array's name, role, dtype and sample shape, and is told which
 * part of which array differs.
 */
class ShardSchemaTest {
  @TempDir static Path dir;
  private static String set;

  @BeforeAll
  static void write() {
    set = dir.resolve("set").toString();
    try (ArrayDataProvider source = ArrayDataProvider.builder().data("image", Nd4j.create(new float[6][3][4]))
        .label("digit", Nd4j.createFromArray(new int[6])).batchSize(3).build()) {
      ShardWriter.builder().samplesPerFile(4).build().write(source, set);
    }
  }

  private static Column column(String name, Role role, Shape shape, DType dtype, String layout, long maxLength) {
    return new Column(new SampleSchema.Field(name, role, shape, dtype, layout, maxLength));
  }

  @Test
  void theVersionOneFixtureReadsUnderDefaultLayoutsAndNoBound() throws IOException, URISyntaxException {
    Path index = Path.of(ShardSchemaTest.class.getResource("/shards/v1-scalars/shards.index").toURI());
    ShardIndex read = ShardIndex.parse(Files.readString(index), "v1-scalars");
    assertEquals(List.of(
        column("x", Role.DATA, Shape.of(2), DType.FLOAT32, "NC", 0),
        column("label", Role.LABEL, Shape.scalar(), DType.INT32, "N", 0),
        column("weight", Role.LABEL, Shape.scalar(), DType.FLOAT64, "N", 0),
        column("big", Role.LABEL, Shape.scalar(), DType.INT64, "N", 0),
        column("small", Role.LABEL, Shape.scalar(), DType.INT8, "N", 0),
        column("short16", Role.LABEL, Shape.scalar(), DType.INT16, "N", 0),
        column("byte8", Role.LABEL, Shape.scalar(), DType.UINT8, "N", 0),
        column("flag", Role.LABEL, Shape.scalar(), DType.BOOL, "N", 0),
        column("score", Role.LABEL, Shape.scalar(), DType.FLOAT32, "N", 0)), read.columns());
    assertEquals(12, read.samples());
    // Written again, it is a version-2 index of the same columns.
    String text = read.text();
    assertTrue(text.startsWith("minibatch-shards/2\ncolumn\tx DATA FLOAT32 [2] NC\ncolumn\tlabel LABEL INT32 [] N\n"),
        text);
    assertEquals(read, ShardIndex.parse(text, "again"));
  }

  @Test
  void aVersionOneVariableColumnIsTheVariableAxis() {
    ShardIndex read = ShardIndex.parse("minibatch-shards/1\ncolumn\tframes\tDATA\tFLOAT32\t2,-1\nlongest\tframes\t7\n"
        + "file\tpart-00000.parquet\t0\t3\t100\t0000abcd\n", "v1");
    assertEquals(List.of(column("frames", Role.DATA, Shape.of(2, Shape.VARIABLE), DType.FLOAT32, "NCT", 0)),
        read.columns());
    assertEquals(List.of(7), read.longest());
  }

  @Test
  void versionTwoColumnsKeepTheirLayoutAndBound() {
    String text = "minibatch-shards/2\ncolumn\ttokens DATA INT32 [VARIABLE,8] NTC maxLength=50\n"
        + "column\ty LABEL INT64 [] N\nlongest\ttokens\t31\nfile\tpart-00000.parquet\t0\t3\t100\t0000abcd\n";
    ShardIndex read = ShardIndex.parse(text, "v2");
    assertEquals(List.of(column("tokens", Role.DATA, Shape.of(Shape.VARIABLE, 8), DType.INT32, "NTC", 50),
        column("y", Role.LABEL, Shape.scalar(), DType.INT64, "N", 0)), read.columns());
    assertEquals(text, read.text());
  }

  @Test
  void theWrittenSetHoldsTheWritersSchemaInIndexAndFiles() throws IOException {
    String index = Files.readString(Path.of(set, ShardIndex.NAME));
    assertTrue(index.startsWith("minibatch-shards/2\ncolumn\timage DATA FLOAT32 [3,4] NHW\ncolumn\tdigit LABEL INT32 [] N\n"
        + "file\t"), index);
  }

  @Test
  void differencesNameTheArrayThePartAndBothValues() {
    List<Column> set = List.of(column("image", Role.DATA, Shape.of(3, 4), DType.FLOAT32, "NHW", 0),
        column("digit", Role.LABEL, Shape.scalar(), DType.INT32, "N", 0));
    // Layout and bound are the reader's own.
    assertNull(ShardColumns.difference(List.of(column("image", Role.DATA, Shape.of(3, 4), DType.FLOAT32, "NTC", 0),
        column("digit", Role.LABEL, Shape.scalar(), DType.INT32, "N", 0)), set));
    assertEquals("array 1 ('digit') has dtype INT64 where the shard set's has INT32", ShardColumns.difference(List.of(
        set.get(0), column("digit", Role.LABEL, Shape.scalar(), DType.INT64, "N", 0)), set));
    assertEquals("array 1 ('digit') has role DATA where the shard set's has LABEL", ShardColumns.difference(List.of(
        set.get(0), column("digit", Role.DATA, Shape.scalar(), DType.INT32, "N", 0)), set));
    assertEquals("array 0 ('image') has sample shape (12,) where the shard set's has (3, 4)", ShardColumns.difference(
        List.of(column("image", Role.DATA, Shape.of(12), DType.FLOAT32, "NC", 0), set.get(1)), set));
    assertEquals("array 0 is named 'picture' where the shard set's is named 'image'", ShardColumns.difference(List.of(
        column("picture", Role.DATA, Shape.of(3, 4), DType.FLOAT32, "NHW", 0), set.get(1)), set));
    assertEquals("the arrays [image] where the shard set has [image, digit]",
        ShardColumns.difference(List.of(set.get(0)), set));
  }

  @Test
  void aProviderOfOtherArraysIsToldWhichPartDiffers() {
    BatchLayout wrong = BatchLayout.of(List.of(DataDesc.of("image", 2, Shape.of(3, 4), DType.FLOAT32, Role.DATA)),
        List.of(DataDesc.of("digit", 2, Shape.scalar(), DType.INT64, Role.LABEL)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GeneratedShards.batcher(
        ShardProvider.builder(set), Settings.builder().batchSize(2).build(), Settings.none(), "DigitProvider",
        rows -> wrong, NamedBatch::new));
    assertTrue(e.getMessage().startsWith("DigitProvider reads arrays other than the columns of the shard set ")
        && e.getMessage().contains(": array 1 ('digit') has dtype INT64 where the shard set's has INT32"), e.getMessage());
  }
}
