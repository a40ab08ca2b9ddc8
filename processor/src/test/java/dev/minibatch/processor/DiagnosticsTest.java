package dev.minibatch.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * One compile per diagnostic: the exact error count, the stable ID, the file and the line (the
 * annotation value where javac can point at it). No test here may see generated code for the
 * broken type.
 */
class DiagnosticsTest {
  private static JavaFileObject sample(String name, String... body) {
    String[] lines = new String[body.length + 6];
    lines[0] = "package test;";
    lines[1] = "import dev.minibatch.DType;";
    lines[2] = "import dev.minibatch.DataProvider;";
    lines[3] = "import dev.minibatch.Provides;";
    lines[4] = "import org.nd4j.linalg.api.ndarray.INDArray;";
    lines[5] = "import static dev.minibatch.Provides.VARIABLE;";
    System.arraycopy(body, 0, lines, 6, body.length);
    return Sources.source(name, lines);
  }

  private static void assertOneError(JavaFileObject src, String id, String lineContaining) {
    Compilation c = Sources.compile(src);
    assertThat(c).failed();
    assertThat(c).hadErrorCount(1);
    assertThat(c).hadErrorContaining("[minibatch/" + id + "]").inFile(src).onLineContaining(lineContaining);
    assertThat(Sources.generatedWhenFailing(src)).isEmpty();
  }

  @Test
  void notAClass_interface() {
    assertOneError(sample("S",
        "@DataProvider",
        "interface S {",
        "  @Provides(shape = {2}) float[] x();",
        "}"), "NotAClass", "@DataProvider");
  }

  @Test
  void notAClass_abstract() {
    assertOneError(sample("S",
        "@DataProvider",
        "abstract class S {",
        "  @Provides(shape = {2}) float[] x;",
        "}"), "NotAClass", "@DataProvider");
  }

  @Test
  void notAClass_enum() {
    assertOneError(sample("S",
        "@DataProvider",
        "enum S {",
        "  A;",
        "  @Provides float x;",
        "}"), "NotAClass", "@DataProvider");
  }

  @Test
  void innerClass() {
    assertOneError(sample("Outer",
        "class Outer {",
        "  @DataProvider",
        "  class S {",
        "    @Provides float x;",
        "  }",
        "}"), "InnerClass", "@DataProvider");
  }

  @Test
  void privateClass() {
    assertOneError(sample("Outer",
        "class Outer {",
        "  @DataProvider",
        "  private static class S {",
        "    @Provides float x;",
        "  }",
        "}"), "PrivateClass", "@DataProvider");
  }

  @Test
  void negativeBatchSize() {
    assertOneError(sample("S",
        "@DataProvider(",
        "    batchSize = -4)",
        "record S(@Provides float x) {}"), "NegativeBatchSize", "batchSize = -4");
  }

  @Test
  void shapeDim() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(shape = {3, 0}) float[][] x) {}");
    Compilation c = Sources.compile(src);
    assertThat(c).hadErrorCount(1);
    assertThat(c).hadErrorContaining("[minibatch/ShapeDim] @Provides 'x': shape (3, 0): dim 1 is 0, every dim must be > 0")
        .inFile(src).onLineContaining("shape = {3, 0}");
  }

  @Test
  void shapeDim_negativeOtherThanVariable() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {-2, 3}) float[][] x) {}");
    assertOneError(src, "ShapeDim", "shape = {-2, 3}");
    assertThat(Sources.compile(src)).hadErrorContaining("dim 0 is -2, every dim must be > 0 (or VARIABLE, -1");
  }

  @Test
  void multipleVariableAxes() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {VARIABLE, VARIABLE}) float[][] x) {}");
    assertOneError(src, "MultipleVariableAxes", "shape = {VARIABLE, VARIABLE}");
    assertThat(Sources.compile(src)).hadErrorContaining("has shape (-1, -1) with VARIABLE axes [0, 1]");
  }

  @Test
  void variableFlat() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {VARIABLE, 64}) float[] x) {}");
    assertOneError(src, "VariableFlat", "shape = {VARIABLE, 64}");
    assertThat(Sources.compile(src)).hadErrorContaining("Use a rank-2 array (float[][])");
  }

  @Test
  void maxLengthWithoutVariable() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {8},",
        "      maxLength = 20) float[] x) {}");
    assertOneError(src, "MaxLengthWithoutVariable", "maxLength = 20");
  }

  @Test
  void negativeMaxLength() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {VARIABLE},",
        "      maxLength = -5) float[] x) {}"), "NegativeMaxLength", "maxLength = -5");
  }

  @Test
  void tooLongWithoutMaxLength() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {VARIABLE},",
        "      tooLong = dev.minibatch.TooLong.TRUNCATE_END) float[] x) {}"), "TooLongWithoutMaxLength", "tooLong =");
  }

  @Test
  void sameLengthUnknown() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {VARIABLE}) int[] tokens,",
        "  @Provides(shape = {VARIABLE}, label = true,",
        "      sameLengthAs = \"tokenz\") int[] tags) {}");
    assertOneError(src, "SameLengthUnknown", "sameLengthAs = \"tokenz\"");
    assertThat(Sources.compile(src)).hadErrorContaining("which is not a @Provides member of this type; name another "
        + "@Provides member by its property name: tokens");
  }

  @Test
  void sameLengthUnknown_itself() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {VARIABLE},",
        "      sameLengthAs = \"tokens\") int[] tokens) {}"), "SameLengthUnknown", "sameLengthAs = \"tokens\"");
  }

  @Test
  void sameLengthMismatch_targetOfAnotherRankWithoutVariableAxis() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {4, 4}) float[][] image,",
        "  @Provides(shape = {VARIABLE}, label = true,",
        "      sameLengthAs = \"image\") int[] tags) {}");
    assertOneError(src, "SameLengthMismatch", "sameLengthAs = \"image\"");
    assertThat(Sources.compile(src)).hadErrorContaining("'image' has shape (4, 4) with no VARIABLE axis");
  }

  @Test
  void sameLengthMismatch_scalarTarget() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {VARIABLE}) int[] tokens,",
        "  @Provides(label = true) int count,",
        "  @Provides(shape = {VARIABLE}, label = true,",
        "      sameLengthAs = \"count\") int[] tags) {}"), "SameLengthMismatch", "sameLengthAs = \"count\"");
  }

  @Test
  void sameLengthMismatch_followerWithItsOwnBound() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "  @Provides(shape = {VARIABLE}) int[] tokens,",
        "  @Provides(shape = {VARIABLE}, label = true, maxLength = 9,",
        "      sameLengthAs = \"tokens\") int[] tags) {}");
    assertOneError(src, "SameLengthMismatch", "sameLengthAs = \"tokens\"");
    assertThat(Sources.compile(src)).hadErrorContaining("declared on 'tokens'");
  }

  @Test
  void shapeDim_fromConstant() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(shape = {S.H, 2}) float[][] x) {",
        "  static final int H = -3;",
        "}"), "ShapeDim", "shape = {S.H, 2}");
  }

  @Test
  void shapeRank() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(shape = {2, 3, 4}) float[][] x) {}");
    Compilation c = Sources.compile(src);
    assertThat(c).hadErrorCount(1);
    assertThat(c).hadErrorContaining("[minibatch/ShapeRank]").inFile(src).onLineContaining("shape = {2, 3, 4}");
    assertThat(c).hadErrorContaining("a rank-2 array cannot hold shape of rank 3");
  }

  @Test
  void layoutRank() {
    // A sequence layout (batch, time, channel) on a rank-1 sample: three axes named, two exist.
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(shape = {8}, layout = \"NTC\") float[] x) {}");
    Compilation c = Sources.compile(src);
    assertThat(c).hadErrorCount(1);
    assertThat(c).hadErrorContaining("[minibatch/LayoutRank]").inFile(src).onLineContaining("layout = \"NTC\"");
    assertThat(c).hadErrorContaining("@Provides 'x' has shape (8,): layout 'NTC' names 3 axes but a batch of rank-1 "
        + "samples has 2 (the batch axis N, then one per sample axis)");
    assertThat(Sources.generatedWhenFailing(src)).isEmpty();
  }

  @Test
  void invalidLayout() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(shape = {8, 3}, layout = \"TNC\") float[][] x) {}"), "InvalidLayout", "layout = \"TNC\"");
  }

  @Test
  void scalarShape() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(shape = {3}) float x) {}"), "ScalarShape", "shape = {3}");
  }

  @Test
  void missingShape() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides float[] x) {}"), "MissingShape", "@Provides float[] x");
  }

  @Test
  void unsupportedType() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides Float x) {}"), "UnsupportedType", "@Provides Float x");
  }

  /** A renamed member: the Java type is the member's, so the message names the member first, then its slot. */
  @Test
  void unsupportedType_namesTheJavaMemberAndHintsAtClassIndicesForAClassNameLabel() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(shape = {2}) float[] x,",
        "    @Provides(name = \"softmax_label\", label = true) String label) {}");
    assertOneError(src, "UnsupportedType", "String label");
    Compilation c = Sources.compile(src);
    assertThat(c).hadErrorContaining("[minibatch/UnsupportedType] @Provides record component 'label' "
        + "(provided as 'softmax_label') has type java.lang.String; supported types are");
    assertThat(c).hadErrorContaining("A class label is an int class index: number the class names once (as "
        + "torchvision's class_to_idx does");
  }

  @Test
  void unsupportedType_aMemberNamedLikeItsSlotIsNamedOnce() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides Float x) {}");
    Compilation c = Sources.compile(src);
    assertThat(c).hadErrorContaining("[minibatch/UnsupportedType] @Provides record component 'x' has type "
        + "java.lang.Float; supported types are the eight primitives, primitive arrays of any rank, and "
        + "org.nd4j.linalg.api.ndarray.INDArray. Use the primitive float: a sample's values cannot be null");
  }

  @Test
  void unsupportedType_aFieldOfStringDataIsPointedToAVocabulary() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "class S {",
        "  @Provides(shape = {4}) String[] words;",
        "}");
    assertOneError(src, "UnsupportedType", "String[] words");
    assertThat(Sources.compile(src)).hadErrorContaining("@Provides field 'words' has type java.lang.String[]; "
        + "supported types are the eight primitives, primitive arrays of any rank, and "
        + "org.nd4j.linalg.api.ndarray.INDArray. Strings go in as int indices: map each to its index in a vocabulary");
  }

  @Test
  void unsupportedType_anEnumLabelIsPointedToItsIndex() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides float x,",
        "    @Provides(label = true) java.util.concurrent.TimeUnit unit) {}");
    assertOneError(src, "UnsupportedType", "TimeUnit unit");
    assertThat(Sources.compile(src)).hadErrorContaining("@Provides record component 'unit' has type "
        + "java.util.concurrent.TimeUnit; supported types are the eight primitives, primitive arrays of any rank, "
        + "and org.nd4j.linalg.api.ndarray.INDArray. Provide the constant's index as int (e.g. its ordinal())");
  }

  @Test
  void unsupportedType_objectArray() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(shape = {2}) String[] x) {}"), "UnsupportedType", "String[] x");
  }

  @Test
  void unresolvedType() {
    JavaFileObject src = sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides NotGeneratedByAnyone x) {}");
    Compilation c = Sources.compile(src);
    assertThat(c).failed();
    // javac's own "cannot find symbol" plus ours, reported once, in the last round.
    assertThat(c).hadErrorContaining("[minibatch/UnresolvedType]").inFile(src).onLineContaining("NotGeneratedByAnyone x");
    assertThat(c.errors().stream().filter(d -> d.getMessage(null).contains("[minibatch/")).count()).isEqualTo(1);
  }

  @Test
  void dtypeMismatch() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(shape = {2}, dtype = DType.INT8) float[] x) {}"), "DTypeMismatch", "dtype = DType.INT8");
  }

  @Test
  void duplicateName() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(name = \"x\") float a,",
        "    @Provides(name = \"x\", label = true) float b) {}"), "DuplicateName", "label = true");
  }

  @Test
  void invalidName() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(",
        "    @Provides(name = \"my image\") float a) {}"), "InvalidName", "my image");
  }

  @Test
  void accessorClash() {
    assertOneError(sample("S",
        "@DataProvider",
        "class S {",
        "  @Provides(name = \"a\") float fooBar;",
        "  @Provides(name = \"b\") float foo_bar;",
        "}"), "AccessorClash", "float foo_bar");
  }

  @Test
  void noData() {
    assertOneError(sample("S",
        "@DataProvider",
        "record S(@Provides(label = true) float y) {}"), "NoData", "@DataProvider");
  }

  @Test
  void unreadable_privateFieldWithoutGetter() {
    assertOneError(sample("S",
        "@DataProvider",
        "class S {",
        "  @Provides private float x;",
        "}"), "Unreadable", "private float x");
  }

  @Test
  void unreadable_privateGetter() {
    assertOneError(sample("S",
        "@DataProvider",
        "class S {",
        "  @Provides private float getX() { return 1; }",
        "}"), "Unreadable", "getX()");
  }

  @Test
  void staticMember() {
    assertOneError(sample("S",
        "@DataProvider",
        "class S {",
        "  @Provides float a;",
        "  @Provides static float b;",
        "}"), "StaticMember", "static float b");
  }

  @Test
  void notAGetter() {
    assertOneError(sample("S",
        "@DataProvider",
        "class S {",
        "  @Provides float a;",
        "  @Provides float b(int i) { return i; }",
        "}"), "NotAGetter", "float b(int i)");
  }

  @Test
  void generatedNameClash() {
    JavaFileObject s = sample("S",
        "@DataProvider",
        "record S(@Provides float x) {}");
    JavaFileObject existing = Sources.source("SProvider", "package test;", "class SProvider {}");
    Compilation c = Sources.compile(s, existing);
    assertThat(c).hadErrorCount(1);
    assertThat(c).hadErrorContaining("[minibatch/GeneratedNameClash]").inFile(s).onLineContaining("@DataProvider");
    assertThat(c).hadErrorContaining("test.SProvider");
  }

  @Test
  void badOption() {
    JavaFileObject s = sample("S",
        "@DataProvider",
        "record S(@Provides float x) {}");
    Compilation c = Sources.compile(new String[] {"-Aminibatch.daggerModule=maybe"}, s);
    assertThat(c).hadErrorCount(1);
    assertThat(c).hadErrorContaining("[minibatch/BadOption] option -Aminibatch.daggerModule=maybe is not valid");
  }

  @Test
  void everyProblemOfAClassInOneCompile() {
    JavaFileObject src = sample("S",
        "@DataProvider(batchSize = -1)",
        "record S(",
        "    @Provides(shape = {0}) float[] a,",
        "    @Provides(shape = {2}) float b,",
        "    @Provides(name = \"a\", label = true) Object c) {}");
    Compilation c = Sources.compile(src);
    assertThat(c).hadErrorCount(5);
    assertThat(c).hadErrorContaining("[minibatch/NegativeBatchSize]").inFile(src).onLineContaining("batchSize = -1");
    assertThat(c).hadErrorContaining("[minibatch/ShapeDim]").inFile(src).onLineContaining("shape = {0}");
    assertThat(c).hadErrorContaining("[minibatch/ScalarShape]").inFile(src).onLineContaining("float b");
    assertThat(c).hadErrorContaining("[minibatch/DuplicateName]").inFile(src).onLineContaining("Object c");
    assertThat(c).hadErrorContaining("[minibatch/UnsupportedType]").inFile(src).onLineContaining("Object c");
    assertThat(Sources.generatedWhenFailing(src)).isEmpty();
  }

  @Test
  void aBrokenTypeDoesNotStopACleanOne() {
    JavaFileObject bad = sample("Bad", "@DataProvider", "record Bad(@Provides(shape = {2}) float x) {}");
    JavaFileObject good = sample("Good", "@DataProvider", "record Good(@Provides float x) {}");
    Compilation c = Sources.compile(bad, good);
    assertThat(c).hadErrorCount(1);
    assertThat(Sources.generatedWhenFailing(bad, good)).containsExactly("test/GoodBatch.java", "test/GoodProvider.java");
  }
}
