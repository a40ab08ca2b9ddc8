package dev.minibatch.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The generated {@code PointSparkRows}: its schema, the row ↔ record mapping, and the schema errors
 * (missing column, wrong type — before any job; an array of the wrong length — per row, naming it).
 */
class PointSparkRowsTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void schemaIsOneColumnPerComponentWithFlatArrays() {
    StructType s = PointSparkRows.INSTANCE.schema();
    assertEquals("struct<x:array<float>,y:int>", s.simpleString());
    assertArrayEquals(new long[] {2, 3}, s.fields()[0].metadata().getLongArray("minibatch.shape"));
    assertEquals("data", s.fields()[0].metadata().getString("minibatch.role"));
    assertEquals("label", s.fields()[1].metadata().getString("minibatch.role"));
    assertArrayEquals(new long[0], s.fields()[1].metadata().getLongArray("minibatch.shape"));
    assertEquals(Point.class, PointSparkRows.INSTANCE.sampleType());
  }

  @Test
  void toRowFlattensRowMajorAndFromRowRestores() {
    Row r = PointSparkRows.INSTANCE.toRow(Point.of(4));
    assertArrayEquals(new float[] {4, 4.5f, 5, 5.5f, 6, 6.5f}, (float[]) r.get(0));
    assertEquals(4, r.getInt(1));
    Point back = PointSparkRows.INSTANCE.fromRow(r, 0);
    assertArrayEquals(new float[] {4, 4.5f, 5}, back.x()[0]);
    assertArrayEquals(new float[] {5.5f, 6, 6.5f}, back.x()[1]);
    assertEquals(4, back.y());
  }

  @Test
  void readsRowsSparkHandsOut() {
    Dataset<Row> df = spark.createDataFrame(List.of(PointSparkRows.INSTANCE.toRow(Point.of(7))),
        PointSparkRows.INSTANCE.schema());
    Row collected = df.collectAsList().get(0);
    Point p = PointSparkRows.INSTANCE.fromRow(collected, 0);
    assertArrayEquals(new float[] {8.5f, 9, 9.5f}, p.x()[1]);
    assertEquals(7, p.y());
  }

  @Test
  void rank3AndBinaryColumnsRoundTripThroughSpark() {
    int[][][] cube = new int[2][3][2];
    for (int i = 0; i < 12; i++) {
      cube[i / 6][(i / 2) % 3][i % 2] = i;
    }
    Cube c = new Cube(cube, new byte[] {1, 2, (byte) 200, 4}, 0.25);
    assertEquals("struct<cube:array<int>,pixels:binary,w:double>", CubeSparkRows.INSTANCE.schema().simpleString());
    Row r = CubeSparkRows.INSTANCE.toRow(c);
    assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, (int[]) r.get(0), "row-major");
    Row collected = spark.createDataFrame(List.of(r), CubeSparkRows.INSTANCE.schema()).collectAsList().get(0);
    Cube back = CubeSparkRows.INSTANCE.fromRow(collected, 0);
    assertEquals(11, back.cube()[1][2][1]);
    assertEquals(7, back.cube()[1][0][1]);
    assertArrayEquals(new byte[] {1, 2, (byte) 200, 4}, back.pixels());
    assertEquals(0.25, back.w());
    assertEquals(2, CubeSparkRows.INSTANCE.defaultBatchSize());
    // Two data members and a label: no DataSet, a MultiDataSet.
    SparkSamples<Cube, CubeProvider> cubes = SparkSamples.builder(CubeSparkRows.INSTANCE)
        .fromDataFrame(spark.createDataFrame(List.of(r, r, r), CubeSparkRows.INSTANCE.schema()));
    SparkBatches<Cube, CubeProvider> batches = cubes.batches(b -> { });
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> batches.dataSets(0));
    assertEquals("a DataSet holds one data and one label array; Cube has 2 data and 1 label members; use "
        + "multiDataSets or Format.MULTI_DATA_SET", e.getMessage());
    List<org.nd4j.linalg.dataset.api.MultiDataSet> m = batches.multiDataSets(0).collect();
    assertEquals(2, m.size(), "3 cubes in the declared batches of 2, PARTIAL");
    assertEquals(2, m.get(0).numFeatureArrays());
    assertEquals(1, m.get(1).getFeatures(0).size(0));
    assertEquals(11, m.get(1).getFeatures(0).getInt(0, 1, 2, 1));
    cubes.unpersist();
  }

  @Test
  void raggedRecordFailsWithTheMember() {
    Point ragged = new Point(new float[][] {{1, 2, 3}, {4, 5}}, 0);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PointSparkRows.INSTANCE.toRow(ragged));
    assertEquals("Point.x: an innermost array has 2 elements, expected 3 (shape [2, 3])", e.getMessage());
  }

  @Test
  void missingColumnFailsBeforeAnyJob() {
    StructType onlyX = new StructType().add("x", DataTypes.createArrayType(DataTypes.FloatType), true);
    Dataset<Row> df = spark.createDataFrame(List.<Row>of(), onlyX);
    long jobsBefore = spark.sparkContext().statusTracker().getJobIdsForGroup(null).length;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SparkSamples.builder(PointSparkRows.INSTANCE).fromDataFrame(df));
    assertEquals("the DataFrame does not fit Point: column 'y' is missing: Point.y needs int; the DataFrame has columns [x]",
        e.getMessage());
    assertEquals(jobsBefore, spark.sparkContext().statusTracker().getJobIdsForGroup(null).length, "no job ran");
  }

  @Test
  void wrongTypeNamesColumnExpectedAndFound() {
    StructType wrong = new StructType()
        .add("x", DataTypes.createArrayType(DataTypes.DoubleType), true)
        .add("y", DataTypes.LongType, true);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PointSparkRows.INSTANCE.check(wrong));
    assertEquals("the DataFrame does not fit Point: column 'x' has type array<double>, expected array<float> "
        + "(6 elements, shape [2, 3]) for Point.x; column 'y' has type bigint, expected int for Point.y", e.getMessage());
  }

  @Test
  void nullableArraysAndExtraColumnsFit() {
    StructType looser = new StructType()
        .add("id", DataTypes.StringType, true)
        .add("y", DataTypes.IntegerType, true)
        .add("x", DataTypes.createArrayType(DataTypes.FloatType, true), true, Metadata.empty());
    PointSparkRows.INSTANCE.check(looser);
    // by name, not position
    Row r = new org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema(
        new Object[] {"a", 3, List.of(1f, 2f, 3f, 4f, 5f, 6f)}, looser);
    Point p = PointSparkRows.INSTANCE.fromRow(r, 9);
    assertEquals(3, p.y());
    assertArrayEquals(new float[] {4, 5, 6}, p.x()[1]);
  }

  @Test
  void arrayOfWrongLengthFailsNamingTheRow() {
    Row shortRow = RowFactory.create(new float[] {1, 2, 3, 4, 5}, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PointSparkRows.INSTANCE.fromRow(shortRow, 17));
    assertEquals("row 17: column 'x' has 5 elements, expected 6", e.getMessage());
    Row nullLabel = RowFactory.create(new float[6], null);
    e = assertThrows(IllegalArgumentException.class, () -> PointSparkRows.INSTANCE.fromRow(nullLabel, 3));
    assertEquals("row 3: column 'y' is null", e.getMessage());
  }

  @Test
  void orderByAnIdColumnNumbersTheRowsByIt() {
    // x falls as id rises, so the default content order would number them the other way round.
    StructType withId = PointSparkRows.INSTANCE.schema().add("id", DataTypes.LongType, false);
    List<Row> rows = new java.util.ArrayList<>();
    for (int id = 0; id < 6; id++) {
      rows.add(RowFactory.create(new float[] {100 - id, 0, 0, 0, 0, 0}, 10 + id, (long) id));
    }
    java.util.Collections.reverse(rows);
    Dataset<Row> df = spark.createDataFrame(rows, withId).repartition(3);
    SparkSamples<Point, PointProvider> byId = SparkSamples.builder(PointSparkRows.INSTANCE).orderBy("id").fromDataFrame(df);
    List<scala.Tuple2<Long, Row>> indexed = byId.indexedRows().sortByKey().collect();
    for (int i = 0; i < 6; i++) {
      assertEquals(i, indexed.get(i)._1());
      assertEquals(10 + i, indexed.get(i)._2().getInt(1), "index " + i);
    }
    byId.unpersist();
    SparkSamples<Point, PointProvider> byContent = SparkSamples.builder(PointSparkRows.INSTANCE).fromDataFrame(df);
    assertEquals(15, byContent.indexedRows().sortByKey().first()._2().getInt(1), "content order: smallest x first");
    byContent.unpersist();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SparkSamples.builder(PointSparkRows.INSTANCE).orderBy("key").fromDataFrame(df));
    assertEquals("orderBy column 'key' is not in the DataFrame; it has columns [x, y, id]", e.getMessage());
  }

  @Test
  void wrongLengthInADataFrameSurfacesWithTheRowAndCause() {
    List<Row> rows = new java.util.ArrayList<>();
    for (int i = 0; i < 10; i++) {
      rows.add(PointSparkRows.INSTANCE.toRow(Point.of(i)));
    }
    // The content order sorts by x first: x[0] == id, so the bad row (id 6) gets index 6.
    rows.set(6, RowFactory.create(new float[] {6, 1, 2, 3, 4}, 6));
    Dataset<Row> df = spark.createDataFrame(rows, PointSparkRows.INSTANCE.schema()).repartition(3);
    SparkSampleException e = assertThrows(SparkSampleException.class,
        () -> SparkSamples.builder(PointSparkRows.INSTANCE).fromDataFrame(df));
    assertEquals(6, e.index());
    assertEquals("row 6 of the data set: row 6: column 'x' has 5 elements, expected 6", e.getMessage());
    assertTrue(e.getCause() instanceof IllegalArgumentException, String.valueOf(e.getCause()));
    assertEquals("row 6: column 'x' has 5 elements, expected 6", e.getCause().getMessage());
  }
}
