package dev.minibatch.runtime.reader;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@link Readers#lines}: the lines of a text file; each pass opens the file anew. */
final class LinesReader implements Reader<String> {
  private final Path path;
  private final Charset charset;

  LinesReader(Path path, Charset charset) {
    this.path = path;
    this.charset = charset;
  }

  @Override
  public PipelineIterator<String> iterator() {
    BufferedReader in;
    try {
      in = Files.newBufferedReader(path, charset);
    } catch (IOException e) {
      throw IoFailure.of("open", path, e);
    }
    return new SourceIterator<String>(List.of()) {
      private long line;

      @Override
      Object advance() {
        try {
          String s = in.readLine();
          line++;
          return s == null ? END : s;
        } catch (IOException e) {
          throw IoFailure.of("read", path + ", line " + (line + 1), e);
        }
      }

      @Override
      public void close() {
        try {
          super.close();
        } finally {
          try {
            in.close();
          } catch (IOException e) {
            throw IoFailure.of("close", path, e);
          }
        }
      }
    };
  }

  @Override
  public String toString() {
    return "lines of " + path;
  }
}
