package dev.minibatch.runtime.internal.io;

import dev.minibatch.runtime.io.FileFormatException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads the lines of a small text file (an index, an image list) as strict UTF-8. Bytes that are
 * not UTF-8 are the file's content, not a failure to read it, so they are a {@link
 * FileFormatException} naming the file, the line and the byte offset, where {@code
 * Files.readAllLines} would throw an {@code IOException} that names nothing.
 */
public final class TextLines {
  private TextLines() {}

  /**
   * The lines of {@code file} as {@link String#lines()} splits them ({@code \n}, {@code \r} or
   * {@code \r\n} ends a line; no empty last line after a final line end).
   *
   * @param what what the file should hold, for the message, e.g. {@code "key<TAB>offset lines"}
   * @throws FileFormatException naming the file, line and byte offset of the first byte that is not
   *     UTF-8, or if the file is too large for one Java array
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  public static List<String> read(Path file, String what) {
    return read(file.toString(), FileBytes.readRaw(file), what);
  }

  /**
   * The lines of the bytes {@code bytes} of the file {@code name} (a remote one's, read whole), as
   * {@link #read(Path, String)} reads a local file's.
   *
   * @throws FileFormatException naming {@code name}, the line and byte offset of the first byte that
   *     is not UTF-8
   */
  public static List<String> read(String name, byte[] bytes, String what) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    // UTF-8 never decodes to more chars than it has bytes.
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      // The decoder stops with the input's position at the first byte of the bad sequence.
      int at = in.position();
      int length = result.length();
      throw new FileFormatException(name, "line " + lineOf(bytes, at) + " (byte offset " + at + "): "
          + hex(bytes, at, length) + (length == 1 ? " is" : " are") + " not UTF-8 text; expected " + what);
    }
    return out.flip().toString().lines().toList();
  }

  /** The 1-based line that byte {@code at} lies on, counting line ends as {@link String#lines()} does. */
  private static int lineOf(byte[] bytes, int at) {
    int line = 1;
    for (int i = 0; i < at; i++) {
      if (bytes[i] == '\n' || bytes[i] == '\r' && (i + 1 >= bytes.length || bytes[i + 1] != '\n')) {
        line++;
      }
    }
    return line;
  }

  private static String hex(byte[] bytes, int from, int length) {
    StringBuilder s = new StringBuilder(length == 1 ? "byte" : "bytes");
    for (int i = from; i < Math.min(bytes.length, from + length); i++) {
      s.append(String.format(" 0x%02X", bytes[i] & 0xff));
    }
    return s.toString();
  }
}
