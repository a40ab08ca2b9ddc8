package dev.minibatch.runtime.io.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.runtime.io.FileFormatException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageListTest {
  @TempDir Path dir;

  @Test
  void readsIm2recLines() throws IOException {
    Path lst = Files.writeString(dir.resolve("a.lst"), "0\t1.000000\tcat/1.jpg\n7\t0.5\t2\tdog/x y.png\n");
    ImageList list = ImageList.read(lst);
    assertEquals(2, list.entries().size());
    assertEquals(new ImageList.Entry(0, new float[] {1}, "cat/1.jpg"), list.entries().get(0));
    assertArrayEquals(new float[] {0.5f, 2}, list.byIndex(7).labels());
    assertEquals("dog/x y.png", list.byIndex().get(7L).path());
  }

  @Test
  void writesAsIm2rec() {
    Path lst = dir.resolve("w.lst");
    new ImageList(List.of(new ImageList.Entry(3, new float[] {2}, "b/c.png"))).write(lst);
    assertEquals("3\t2.000000\tb/c.png\n", assertDoesNotFail(lst));
    assertEquals(ImageList.read(lst).entries(), List.of(new ImageList.Entry(3, new float[] {2}, "b/c.png")));
  }

  private static String assertDoesNotFail(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void errorsNameLineAndField() throws IOException {
    assertEquals(dir.resolve("1.lst") + ": line 2: expected 'index<TAB>label...<TAB>path' (at least 3 tab-separated "
        + "fields), found 2 fields", error("0\t1\ta.jpg\n1\tb.jpg\n", "1.lst"));
    assertEquals(dir.resolve("2.lst") + ": line 1: field 3 (label 2): expected a number, found 'x'",
        error("0\t1\tx\ta.jpg\n", "2.lst"));
    assertEquals(dir.resolve("3.lst") + ": line 1: field 1 (index): expected an integer, found 'a'",
        error("a\t1\ta.jpg\n", "3.lst"));
    assertEquals(dir.resolve("4.lst") + ": line 3: index 0 was already on line 1",
        error("0\t1\ta.jpg\n\n0\t1\tb.jpg\n", "4.lst"));
  }

  @Test
  void bytesThatAreNotUtf8NameTheLineAndOffset() throws IOException {
    // Line 1 is 11 bytes with its CRLF; line 2 starts "1\t", then 0xC3 without its continuation byte.
    Path lst = Files.write(dir.resolve("u.lst"), new byte[] {'0', '\t', '1', '\t', 'a', '.', 'p', 'n', 'g', '\r', '\n',
        '1', '\t', (byte) 0xC3, '(', '\t', 'b', '.', 'p', 'n', 'g', '\n'});
    FileFormatException e = assertThrows(FileFormatException.class, () -> ImageList.read(lst));
    assertEquals(lst.toString(), e.file());
    assertEquals(lst + ": line 2 (byte offset 13): byte 0xC3 is not UTF-8 text; expected "
        + "'index<TAB>label...<TAB>path' lines", e.getMessage());
  }

  @Test
  void theLabelWidthIsCheckedAgainstTheFirstLineThenEachLineAgainstIt() throws IOException {
    Path nine = Files.writeString(dir.resolve("nine.lst"), "\n4\t1\t2\t3\t4\t5\t6\t7\t8\t9\ta.jpg\n");
    assertEquals(nine + ": line 2 (image index 4): 9 labels but labelWidth is 1; set labelWidth(9) to read them",
        assertThrows(FileFormatException.class, () -> ImageList.read(nine, 1)).getMessage());
    assertEquals(9, ImageList.read(nine, 9).entries().get(0).labels().length);
    Path mixed = Files.writeString(dir.resolve("mixed.lst"), "0\t1\t2\ta.jpg\n1\t3\t4\tb.jpg\n2\t5\tc.jpg\n");
    assertEquals(mixed + ": line 3 (image index 2): 1 label where line 1 and labelWidth have 2",
        assertThrows(FileFormatException.class, () -> ImageList.read(mixed, 2)).getMessage());
    // Width 0: any count, as im2rec reads a list.
    assertEquals(3, ImageList.read(mixed).entries().size());
  }

  private String error(String content, String name) throws IOException {
    Path p = Files.writeString(dir.resolve(name), content);
    return assertThrows(FileFormatException.class, () -> ImageList.read(p)).getMessage();
  }
}
