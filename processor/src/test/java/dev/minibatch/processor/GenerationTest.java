package dev.minibatch.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * What is generated, and that it compiles cleanly with every supported member form and type: two
 * golden files for the shape of the output; the rest is tested by running generated code in
 * {@code samples/}.
 */
class GenerationTest {
  static final JavaFileObject DIGIT = Sources.sample("Digit",
      "/** One MNIST digit. */\n"
          + "@DataProvider(batchSize = 32)\n"
          + "public record Digit(@Provides(shape = {28, 28}) float[][] image,\n"
          + "    @Provides(name = \"softmax_label\", label = true) int label) {}\n");

  @Test
  void goldenDigit() {
    Compilation c = Sources.compile(DIGIT);
    assertThat(c).succeededWithoutWarnings();
    assertThat(c).generatedSourceFile("test.DigitProvider")
        .hasSourceEquivalentTo(JavaFileObjects.forResource("golden/DigitProvider.java"));
    assertThat(c).generatedSourceFile("test.DigitBatch")
        .hasSourceEquivalentTo(JavaFileObjects.forResource("golden/DigitBatch.java"));
  }

  @Test
  void everyMemberFormAndType() {
    JavaFileObject src = Sources.sample("Mixed",
        "@DataProvider\n"
            + "public class Mixed {\n"
            + "  static final int H = 4;\n"
            + "  @Provides boolean flag;\n"
            + "  @Provides byte b;\n"
            + "  @Provides short s;\n"
            + "  @Provides char c;\n"
            + "  @Provides long l;\n"
            + "  @Provides double d;\n"
            + "  @Provides(shape = {H, 2}) float[] flat;\n"
            + "  @Provides(shape = {2, 3, H}, dtype = DType.FLOAT64) int[][][] cube;\n"
            + "  @Provides(shape = {3}, dtype = DType.UINT8) byte[] pixels;\n"
            + "  @Provides(shape = {3}, dtype = DType.FLOAT32) boolean[] mask;\n"
            + "  @Provides(shape = {2, 2}) INDArray nd;\n"
            + "  private float[] hidden = new float[2];\n"
            + "  @Provides(shape = {2}) public float[] getHidden() { return hidden; }\n"
            + "  @Provides(shape = {2}) private char[] kotlinStyle;\n"
            + "  public char[] getKotlinStyle() { return kotlinStyle; }\n"
            + "  @Provides(label = true, dtype = DType.FLOAT32) int y;\n"
            + "}\n");
    Compilation c = Sources.compile(src);
    assertThat(c).succeededWithoutWarnings();
    assertThat(c).generatedSourceFile("test.MixedBatch").contentsAsUtf8String().contains("public INDArray getKotlinStyle()");
    assertThat(c).generatedSourceFile("test.MixedProvider").contentsAsUtf8String()
        .contains("out6.put(row * 8, v6, 0, 8)");
  }

  @Test
  void nestedSampleGetsAFlatName() {
    JavaFileObject src = Sources.sample("Outer",
        "public class Outer {\n"
            + "  @DataProvider public record Inner(@Provides float x) {}\n"
            + "}\n");
    Compilation c = Sources.compile(src);
    assertThat(c).succeededWithoutWarnings();
    assertThat(c).generatedSourceFile("test.Outer_InnerProvider");
    assertThat(c).generatedSourceFile("test.Outer_InnerBatch");
  }

  @Test
  void daggerModuleIsOptIn() {
    Compilation without = Sources.compile(DIGIT);
    assertThat(without).succeeded();
    org.junit.jupiter.api.Assertions.assertTrue(without.generatedSourceFile("test.DigitProviderModule").isEmpty());

    Compilation with = Sources.compile(new String[] {"-Aminibatch.daggerModule=true"}, DIGIT);
    assertThat(with).succeededWithoutWarnings();
    assertThat(with).generatedSourceFile("test.DigitProviderModule").contentsAsUtf8String()
        .contains("@Module");
  }

  @Test
  void generatedAnnotationCanBeTurnedOff() {
    Compilation c = Sources.compile(new String[] {"-Aminibatch.generatedAnnotation=false"}, DIGIT);
    assertThat(c).succeeded();
    assertThat(c).generatedSourceFile("test.DigitBatch").contentsAsUtf8String().doesNotContain("@Generated");
  }

  @Test
  void everyVariableFormCompilesWithoutWarnings() {
    JavaFileObject src = Sources.sample("Seq",
        "@DataProvider\n"
            + "public record Seq(\n"
            + "    @Provides(shape = {Provides.VARIABLE}, stepPadding = 255, dtype = DType.UINT8) byte[] bytes,\n"
            + "    @Provides(shape = {2, Provides.VARIABLE}, maxLength = 9, tooLong = dev.minibatch.TooLong.TRUNCATE_START,\n"
            + "        dtype = DType.FLOAT32) short[][] channels,\n"
            + "    @Provides(shape = {Provides.VARIABLE, 3, 2}, stepPadding = Double.NaN) float[][][] cubes,\n"
            + "    @Provides(shape = {Provides.VARIABLE, 4}, sameLengthAs = \"cubes\") org.nd4j.linalg.api.ndarray.INDArray nd,\n"
            + "    @Provides(shape = {Provides.VARIABLE}, label = true, sameLengthAs = \"bytes\", stepPadding = -1) long[] tags,\n"
            + "    @Provides(shape = {Provides.VARIABLE}, label = true, dtype = DType.FLOAT64) boolean[] flags) {}\n");
    Compilation c = Sources.compile(src);
    assertThat(c).succeededWithoutWarnings();
    // Four length groups: bytes (with tags), channels, cubes (with nd), flags; one mask accessor per member.
    assertThat(c).generatedSourceFile("test.SeqBatch").contentsAsUtf8String().contains("return maskOf(3)");
    assertThat(c).generatedSourceFile("test.SeqProvider").contentsAsUtf8String()
        .contains("new int[] {0, 1, 2, 2, 0, 3}");
    assertThat(c).generatedSourceFile("test.SeqProvider").contentsAsUtf8String()
        .contains("(float[]) Collate.padRow(DType.FLOAT32, Double.NaN)");
    // UINT8's 255 is the byte -1, as the shard sets' padding reads it: one rule, Collate.padRow(DType, double).
    assertThat(c).generatedSourceFile("test.SeqProvider").contentsAsUtf8String()
        .contains("(byte[]) Collate.padRow(DType.UINT8, 255.0d)");
  }
}
