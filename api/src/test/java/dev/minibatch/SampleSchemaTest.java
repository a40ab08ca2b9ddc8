package dev.minibatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.SampleSchema.Field;
import dev.minibatch.shape.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-sample schema: its one text form, read and written, and equality field by field. */
class SampleSchemaTest {
  private static final Field IMAGE = new Field("image", Role.DATA, Shape.of(28, 28), DType.FLOAT32, "NHW", 0);
  private static final Field TOKENS = new Field("tokens", Role.DATA, Shape.of(Shape.VARIABLE, 8), DType.INT32, "NTC", 50);
  private static final Field LABEL = new Field("label", Role.LABEL, Shape.scalar(), DType.INT64, "N", 0);

  @Test
  void handWrittenTextsParseToTheirValues() {
    assertEquals(IMAGE, Field.parse("image DATA FLOAT32 [28,28] NHW"));
    assertEquals(TOKENS, Field.parse("tokens DATA INT32 [VARIABLE,8] NTC maxLength=50"));
    assertEquals(LABEL, Field.parse("label LABEL INT64 [] N"));
    assertEquals(new Field("data:0/x", Role.DATA, Shape.of(3, Shape.VARIABLE), DType.UINT8, "NCT", 0),
        Field.parse("data:0/x DATA UINT8 [3,VARIABLE] NCT"));
    assertEquals(SampleSchema.of(List.of(IMAGE, TOKENS, LABEL)), SampleSchema.parse(
        "image DATA FLOAT32 [28,28] NHW\ntokens DATA INT32 [VARIABLE,8] NTC maxLength=50\nlabel LABEL INT64 [] N\n"));
    assertEquals(SampleSchema.of(List.of()), SampleSchema.parse(""));
  }

  @Test
  void valuesWriteTheTextTheyAreReadFrom() {
    assertEquals("image DATA FLOAT32 [28,28] NHW", IMAGE.toString());
    assertEquals("tokens DATA INT32 [VARIABLE,8] NTC maxLength=50", TOKENS.toString());
    assertEquals("label LABEL INT64 [] N", LABEL.toString());
    SampleSchema s = SampleSchema.of(List.of(IMAGE, TOKENS, LABEL));
    assertEquals("image DATA FLOAT32 [28,28] NHW\ntokens DATA INT32 [VARIABLE,8] NTC maxLength=50\nlabel LABEL INT64 [] N\n",
        s.toString());
    assertEquals(s, SampleSchema.parse(s.toString()));
    for (Field f : s.fields()) {
      assertEquals(f, Field.parse(f.toString()));
    }
  }

  @Test
  void fieldsDifferByEachPart() {
    Field base = TOKENS;
    assertEquals(base, new Field("tokens", Role.DATA, Shape.of(Shape.VARIABLE, 8), DType.INT32, "NTC", 50));
    assertEquals(base.hashCode(), new Field("tokens", Role.DATA, Shape.of(Shape.VARIABLE, 8), DType.INT32, "NTC", 50)
        .hashCode());
    assertNotEquals(base, new Field("token", Role.DATA, Shape.of(Shape.VARIABLE, 8), DType.INT32, "NTC", 50));
    assertNotEquals(base, new Field("tokens", Role.LABEL, Shape.of(Shape.VARIABLE, 8), DType.INT32, "NTC", 50));
    assertNotEquals(base, new Field("tokens", Role.DATA, Shape.of(Shape.VARIABLE, 9), DType.INT32, "NTC", 50));
    assertNotEquals(base, new Field("tokens", Role.DATA, Shape.of(8, Shape.VARIABLE), DType.INT32, "NCT", 50));
    assertNotEquals(base, new Field("tokens", Role.DATA, Shape.of(Shape.VARIABLE, 8), DType.INT64, "NTC", 50));
    assertNotEquals(base, new Field("tokens", Role.DATA, Shape.of(Shape.VARIABLE, 8), DType.INT32, "NT_", 50));
    assertNotEquals(base, new Field("tokens", Role.DATA, Shape.of(Shape.VARIABLE, 8), DType.INT32, "NTC", 0));
    assertNotEquals(SampleSchema.of(List.of(IMAGE, LABEL)), SampleSchema.of(List.of(LABEL, IMAGE)));
    assertNotEquals(SampleSchema.of(List.of(IMAGE, LABEL)), SampleSchema.of(List.of(IMAGE)));
  }

  @Test
  void aFieldIsADataDescAtABatchSizeAndBack() {
    DataDesc d = TOKENS.toDataDesc(16);
    assertEquals(DataDesc.of("tokens", 16, Shape.of(Shape.VARIABLE, 8), DType.INT32, Role.DATA, "NTC", 50), d);
    assertEquals(TOKENS, Field.of(d));
    assertEquals(Shape.of(4), LABEL.toDataDesc(4).shape());
  }

  @Test
  void badFieldsAreRefusedNamingThePart() {
    assertEquals("field name 'my image' has whitespace at index 2", assertThrows(IllegalArgumentException.class,
        () -> new Field("my image", Role.DATA, Shape.of(2), DType.FLOAT32, "NC", 0)).getMessage());
    assertEquals("field 'x': dtype INFER is not a concrete type", assertThrows(IllegalArgumentException.class,
        () -> new Field("x", Role.DATA, Shape.of(2), DType.INFER, "NC", 0)).getMessage());
    assertEquals("field 'x': maxLength 5 needs a VARIABLE axis in the sample shape (2,)", assertThrows(
        IllegalArgumentException.class, () -> new Field("x", Role.DATA, Shape.of(2), DType.FLOAT32, "NC", 5))
        .getMessage());
    assertEquals("field 'x' of sample shape (2,): layout 'NHW' names 3 axes but a batch of rank-1 samples has 2 (the"
        + " batch axis N, then one per sample axis)", assertThrows(IllegalArgumentException.class,
        () -> new Field("x", Role.DATA, Shape.of(2), DType.FLOAT32, "NHW", 0)).getMessage());
    assertEquals("fields 0 and 1 are both named 'image'; names must be unique across data and labels",
        assertThrows(IllegalArgumentException.class, () -> SampleSchema.of(List.of(IMAGE, new Field("image",
            Role.LABEL, Shape.scalar(), DType.INT32, "N", 0)))).getMessage());
  }

  private static String fieldError(String text) {
    return assertThrows(IllegalArgumentException.class, () -> Field.parse(text)).getMessage();
  }

  private static String schemaError(String text) {
    return assertThrows(IllegalArgumentException.class, () -> SampleSchema.parse(text)).getMessage();
  }

  @Test
  void parseErrorsNameTheColumnAndWhatWasExpected() {
    assertEquals("column 1: expected a name (not empty, no whitespace or control character), found '', which is empty",
        fieldError(" DATA FLOAT32 [2] NC"));
    assertEquals("column 7: expected a role (one of [DATA, LABEL]), found 'INPUT'",
        fieldError("image INPUT FLOAT32 [2] NC"));
    assertEquals("column 12: expected a dtype (one of [INFER, BOOL, INT8, UINT8, INT16, UINT16, INT32, INT64, FLOAT16,"
        + " FLOAT32, FLOAT64]), found 'float'", fieldError("image DATA float [2] NC"));
    assertEquals("column 12: expected a dtype, found INFER, which is not a concrete type",
        fieldError("image DATA INFER [2] NC"));
    assertEquals("column 20: expected a sample shape in brackets ([28,28], [VARIABLE,8], [] for a scalar), found '28,28'",
        fieldError("image DATA FLOAT32 28,28 NHW"));
    assertEquals("column 24: expected a dim (a positive integer, or VARIABLE for the variable axis), found '028'",
        fieldError("image DATA FLOAT32 [28,028] NHW"));
    assertEquals("column 21: expected a dim (a positive integer, or VARIABLE for the variable axis), found '-1'",
        fieldError("image DATA FLOAT32 [-1,8] NTC"));
    assertEquals("column 20: expected a sample shape with at most one VARIABLE axis, found [VARIABLE,VARIABLE]: shape"
        + " (-1, -1): dims 0 and 1 are both VARIABLE; a sample has one mask and one length, so at most one axis can vary",
        fieldError("image DATA FLOAT32 [VARIABLE,VARIABLE] NTC"));
    assertEquals("column 28: expected a layout for the sample shape [28,28]: layout 'NC' names 2 axes but a batch of"
        + " rank-2 samples has 3 (the batch axis N, then one per sample axis)", fieldError("image DATA FLOAT32 [28,28] NC"));
    assertEquals("column 27: expected a layout after a space (the form is 'name role dtype [dims] layout', then"
        + " 'maxLength=N' for a bound), found the end of the line", fieldError("image DATA FLOAT32 [28,28]"));
    assertEquals("column 36: expected 'maxLength=' and the bound of the variable axis, found 'max=5'",
        fieldError("tokens DATA INT32 [VARIABLE,8] NTC max=5"));
    assertEquals("column 46: expected a bound, found '0'", fieldError("tokens DATA INT32 [VARIABLE,8] NTC maxLength=0"));
    assertEquals("column 32: expected the end of the line, found 'maxLength=5': the sample shape [28,28] has no VARIABLE"
        + " axis to bound", fieldError("image DATA FLOAT32 [28,28] NHW maxLength=5"));
    assertEquals("column 32: expected 'maxLength=' and the bound of the variable axis, found ''",
        fieldError("image DATA FLOAT32 [28,28] NHW "));
    assertEquals("column 7: expected a role (one of [DATA, LABEL]), found ''", fieldError("image  DATA FLOAT32 [2] NC"));
  }

  @Test
  void schemaParseErrorsNameTheLineToo() {
    assertEquals("line 2, column 7: expected a role (one of [DATA, LABEL]), found 'Data'",
        schemaError("image DATA FLOAT32 [28,28] NHW\nlabel Data INT32 [] N\n"));
    assertEquals("line 1, column 31: expected a newline at the end of the line",
        schemaError("image DATA FLOAT32 [28,28] NHW"));
    assertEquals("line 2, column 1: expected a name (not empty, no whitespace or control character), found '', which is"
        + " empty", schemaError("image DATA FLOAT32 [28,28] NHW\n\n"));
    assertEquals("line 2, column 1: expected a new name, found 'image', the name of line 1 (names are unique across data"
        + " and labels)", schemaError("image DATA FLOAT32 [28,28] NHW\nimage LABEL INT32 [] N\n"));
    assertEquals("line 1, column 1: expected a name (not empty, no whitespace or control character), found 'image\r',"
        + " which has whitespace at index 5", schemaError("image\r DATA FLOAT32 [28,28] NHW\n"));
  }

  @Test
  void anEncodedImageFieldIsWrittenAfterItsLayoutAndReadBack() {
    Field photo = new Field("photo", Role.DATA, Shape.of(3, 224, 224), DType.FLOAT32, "NCHW", 0,
        SampleSchema.Encoding.IMAGE_RGB);
    assertEquals("photo DATA FLOAT32 [3,224,224] NCHW encoding=IMAGE_RGB", photo.toString());
    assertEquals(photo, Field.parse("photo DATA FLOAT32 [3,224,224] NCHW encoding=IMAGE_RGB"));
    Field gray = Field.parse("digit DATA UINT8 [28,28,1] NHWC encoding=IMAGE_GRAY");
    assertEquals(new Field("digit", Role.DATA, Shape.of(28, 28, 1), DType.UINT8, "NHWC", 0,
        SampleSchema.Encoding.IMAGE_GRAY), gray);
    // The encoding is part of the field: the same array stored raw is another field.
    assertNotEquals(photo, new Field("photo", Role.DATA, Shape.of(3, 224, 224), DType.FLOAT32, "NCHW", 0));
    assertEquals(SampleSchema.Encoding.RAW, IMAGE.encoding());
    assertEquals(SampleSchema.Encoding.IMAGE_RGBA, SampleSchema.Encoding.image(4));
    // A DataDesc has no encoding: the batch holds the decoded image.
    assertEquals(DataDesc.of("photo", 2, Shape.of(3, 224, 224), DType.FLOAT32, Role.DATA, "NCHW", 0),
        photo.toDataDesc(2));
  }

  @Test
  void anImageEncodingMustFitTheArrayItDecodesTo() {
    assertEquals("field 'p' of sample shape (3, 8, 8): IMAGE_RGB decodes to a fixed (channels, height, width) array of"
        + " layout NCHW, or (height, width, channels) of layout NHWC; got layout NXYZ", assertThrows(
        IllegalArgumentException.class, () -> new Field("p", Role.DATA, Shape.of(3, 8, 8), DType.FLOAT32, "NXYZ", 0,
            SampleSchema.Encoding.IMAGE_RGB)).getMessage());
    assertEquals("field 'p' of sample shape (8, 8, 3): IMAGE_GRAY decodes to 1 channel, the layout NHWC gives 3",
        assertThrows(IllegalArgumentException.class, () -> new Field("p", Role.DATA, Shape.of(8, 8, 3), DType.UINT8,
            "NHWC", 0, SampleSchema.Encoding.IMAGE_GRAY)).getMessage());
    assertEquals("field 'p' of sample shape (3, 8, 8): IMAGE_RGB decodes to FLOAT32 or UINT8 pixels, not INT32",
        assertThrows(IllegalArgumentException.class, () -> new Field("p", Role.DATA, Shape.of(3, 8, 8), DType.INT32,
            "NCHW", 0, SampleSchema.Encoding.IMAGE_RGB)).getMessage());
    assertEquals("column 38: expected an encoding (one of [RAW, IMAGE_GRAY, IMAGE_RGB, IMAGE_RGBA]), found 'JPEG'",
        fieldError("p DATA FLOAT32 [3,8,8] NCHW encoding=JPEG"));
    assertEquals("column 26: expected an encoding for FLOAT32 [8,8] NHW, found 'encoding=IMAGE_RGB': IMAGE_RGB decodes"
        + " to a fixed (channels, height, width) array of layout NCHW, or (height, width, channels) of layout NHWC; got"
        + " layout NHW", fieldError("p DATA FLOAT32 [8,8] NHW encoding=IMAGE_RGB"));
    assertEquals("column 26: expected an encoding for FLOAT32 [8,8] NHW, found 'encoding=RAW': RAW is the default and"
        + " is not written", fieldError("p DATA FLOAT32 [8,8] NHW encoding=RAW"));
    assertEquals("column 47: expected the end of the line, found ' x'",
        fieldError("p DATA FLOAT32 [3,8,8] NCHW encoding=IMAGE_RGB x"));
  }
}
