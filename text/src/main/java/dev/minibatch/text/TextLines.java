package dev.minibatch.text;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * One pass over the lines of a UTF-8 file, each turned into a document by a {@link LineText}. Lines
 * are split on the bytes ({@code \n}, {@code \r\n}, {@code \r}) and decoded one by one, so a byte
 * sequence that is not UTF-8 is reported on its own line (a reader that decodes ahead in blocks
 * would name an earlier one).
 */
final class TextLines implements PipelineIterator<String> {
  /** A line's text as a document; {@code number} counts from 1. */
  @FunctionalInterface
  interface LineText {
    String text(String line, long number);
  }

  private final Path file;
  private final LineText text;
  private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
  private @Nullable InputStream in;
  private final byte[] buffer = new byte[1 << 16];
  private int position;
  private int limit;
  private byte[] line = new byte[256];
  private long number;
  private @Nullable String next;
  private boolean ended;

  TextLines(Path file, LineText text) {
    this.file = file;
    this.text = text;
    try {
      this.in = Files.newInputStream(file);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new FileFormatException(file, "no such file");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + file, e);
    }
  }

  @Override
  public boolean hasNext() {
    if (next == null && !ended) {
      next = readLine();
      if (next == null) {
        ended = true;
        close();
      }
    }
    return next != null;
  }

  @Override
  public String next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    String line = next;
    next = null;
    return text.text(line, number);
  }

  /** The next line's text, or null at the end of the file. */
  private @Nullable String readLine() {
    int n = 0;
    while (true) {
      if (position == limit && !fill()) {
        if (n == 0) {
          return null;
        }
        break;
      }
      byte b = buffer[position++];
      if (b == '\n') {
        break;
      }
      if (b == '\r') {
        if ((position < limit || fill()) && buffer[position] == '\n') {
          position++;
        }
        break;
      }
      if (n == line.length) {
        line = Arrays.copyOf(line, n * 2);
      }
      line[n++] = b;
    }
    number++;
    try {
      return utf8.reset().decode(ByteBuffer.wrap(line, 0, n)).toString();
    } catch (CharacterCodingException e) {
      throw new FileFormatException(file, "line " + number + ": not UTF-8 text (" + e.getMessage() + ")");
    }
  }

  private boolean fill() {
    InputStream s = in;
    if (s == null) {
      return false;
    }
    try {
      int read = s.read(buffer, 0, buffer.length);
      while (read == 0) {
        read = s.read(buffer, 0, buffer.length);
      }
      if (read < 0) {
        return false;
      }
      position = 0;
      limit = read;
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + " after line " + number, e);
    }
  }

  @Override
  public void close() {
    InputStream s = in;
    in = null;
    ended = true;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot close " + file, e);
      }
    }
  }
}
