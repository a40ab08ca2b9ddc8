package dev.minibatch.spark;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import dev.minibatch.processor.MinibatchProcessor;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * The processor with Spark and this module on the class path: {@code <Sample>SparkRows} for records
 * of primitives and primitive arrays (every rank, byte arrays as binary), compiling without
 * warnings; for an encoded image, a binary column of any length with its encoding in the metadata,
 * written to shard sets through {@code <Sample>Shards}; none for samples Spark columns cannot hold
 * (an INDArray or char member, a class, a component that is not provided).
 */
class SparkRowsGenerationTest {
  private static JavaFileObject sample(String name, String body) {
    return JavaFileObjects.forSourceString("test." + name, "package test;\n\n"
        + "import dev.minibatch.DType;\n"
        + "import dev.minibatch.DataProvider;\n"
        + "import dev.minibatch.Provides;\n"
        + "import org.nd4j.linalg.api.ndarray.INDArray;\n\n"
        + body);
  }

  private static Compilation compile(JavaFileObject src) {
    return Compiler.javac().withProcessors(new MinibatchProcessor()).withOptions("-Xlint:all,-processing").compile(src);
  }

  @Test
  void everyPrimitiveAndRank() {
    Compilation c = compile(sample("All",
        "@DataProvider(batchSize = 8)\n"
            + "public record All(@Provides boolean flag, @Provides byte b, @Provides short s, @Provides long l,\n"
            + "    @Provides double d, @Provides(shape = {2, 3, 4}, dtype = DType.FLOAT64) int[][][] cube,\n"
            + "    @Provides(shape = {5}, dtype = DType.UINT8) byte[] pixels, @Provides(shape = {2, 2}) double[] flat,\n"
            + "    @Provides(label = true) float y) {}\n"));
    assertThat(c).succeededWithoutWarnings();
    assertThat(c).generatedSourceFile("test.AllSparkRows").contentsAsUtf8String()
        .contains("DataTypes.createStructField(\"pixels\", DataTypes.BinaryType, false, RowValues.meta(false, 5L))");
    assertThat(c).generatedSourceFile("test.AllSparkRows").contentsAsUtf8String()
        .contains("DataTypes.createStructField(\"cube\", DataTypes.createArrayType(DataTypes.IntegerType, false), false, "
            + "RowValues.meta(false, 2L, 3L, 4L))");
    assertThat(c).generatedSourceFile("test.AllSparkRows").contentsAsUtf8String()
        .contains("return new All(v0, v1, v2, v3, v4, v5, v6, v7, v8)");
    assertThat(c).generatedSourceFile("test.AllSparkRows").contentsAsUtf8String()
        .contains("@Generated(");
  }

  @Test
  void anEncodedImageIsABinaryColumnOfAnyLength() {
    Compilation c = compile(sample("Snap",
        "@DataProvider\n"
            + "public record Snap(@Provides(shape = {3, 8, 6}, dtype = DType.FLOAT32,\n"
            + "    encoding = dev.minibatch.SampleSchema.Encoding.IMAGE_RGB) byte[] jpeg,\n"
            + "    @Provides(label = true) int y) {}\n"));
    assertThat(c).succeededWithoutWarnings();
    assertThat(c).generatedSourceFile("test.SnapSparkRows").contentsAsUtf8String()
        .contains("DataTypes.createStructField(\"jpeg\", DataTypes.BinaryType, false, "
            + "RowValues.encodedMeta(false, \"IMAGE_RGB\", 3L, 8L, 6L))");
    // Any length (-1), and no element-count check on the way back.
    assertThat(c).generatedSourceFile("test.SnapSparkRows").contentsAsUtf8String()
        .contains("byte[] v0 = RowValues.bytes(row, RowValues.at(row, \"jpeg\", 0, index), \"jpeg\", -1, index);");
    assertThat(c).generatedSourceFile("test.SnapSparkRows").contentsAsUtf8String()
        .doesNotContain("v0.length");
    assertThat(c).generatedSourceFile("test.SnapSparkRows").contentsAsUtf8String()
        .contains("implements SparkRows<Snap, SnapProvider>, EncodedSegments<Snap>");
    assertThat(c).generatedSourceFile("test.SnapSparkRows").contentsAsUtf8String()
        .contains("SnapShards.writeList(segment, samples, base);");
  }

  @Test
  void notForWhatSparkColumnsCannotHold() {
    String[] bodies = {
        "@DataProvider public record Nd(@Provides(shape = {2}) INDArray x, @Provides(label = true) int y) {}\n",
        "@DataProvider public record Ch(@Provides char c, @Provides(label = true) int y) {}\n",
        "@DataProvider public record Extra(@Provides float x, @Provides(label = true) int y, String note) {}\n",
        "@DataProvider public class Cls { @Provides float x; @Provides(label = true) int y; }\n",
    };
    String[] names = {"Nd", "Ch", "Extra", "Cls"};
    for (int i = 0; i < bodies.length; i++) {
      Compilation c = compile(sample(names[i], bodies[i]));
      assertThat(c).succeeded();
      assertThat(c).generatedSourceFile("test." + names[i] + "Provider");
      assertTrue(c.generatedSourceFile("test." + names[i] + "SparkRows").isEmpty(), names[i]);
    }
  }
}
