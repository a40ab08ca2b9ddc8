package dev.minibatch.text;

import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.reader.Reader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A source of documents, each one text, in a fixed order: a document's index in it is its id. The
 * sources that read files give the same documents on every pass and close their file when a pass
 * ends or is closed. Text is UTF-8; a file that is not is an error naming it (and the line).
 */
public final class Documents {
  private final Reader<String> reader;
  private final String description;
  private final long count;

  private Documents(Reader<String> reader, String description, long count) {
    this.reader = reader;
    this.description = description;
    this.count = count;
  }

  /**
   * The texts of {@code texts}, in its order. A {@link Reader} is read through its own closeable
   * passes; any other {@code Iterable} is iterated once per pass.
   */
  public static Documents of(Iterable<String> texts) {
    Reader<String> reader = texts instanceof Reader ? cast(texts) : () -> PipelineIterator.of(texts.iterator());
    long count = texts instanceof java.util.Collection ? ((java.util.Collection<?>) texts).size() : 0;
    return new Documents(reader, texts.getClass().getSimpleName(), count);
  }

  @SuppressWarnings("unchecked")
  private static Reader<String> cast(Iterable<String> texts) {
    return (Reader<String>) texts;
  }

  /**
   * Every line of {@code file} a document, empty lines included (so document {@code i} is line
   * {@code i + 1}); line ends ({@code \n}, {@code \r\n}, {@code \r}) are not part of the text.
   *
   * @throws FileFormatException if the file is missing or not a regular file
   */
  public static Documents lines(Path file) {
    requireFile(file);
    return new Documents(() -> new TextLines(file, (line, number) -> line), file.toString(), 0);
  }

  /**
   * Each line of {@code file} a JSON object whose string member {@code field} is a document (JSON
   * lines, as many corpora ship). Every line must be one: a malformed line, a blank line, a line
   * without the member or with a member that is not a string is a {@link FileFormatException} naming
   * the file, the line and what was expected; nothing is skipped.
   *
   * @throws FileFormatException if the file is missing or not a regular file
   */
  public static Documents jsonLines(Path file, String field) {
    requireFile(file);
    JsonField json = new JsonField(file, field);
    return new Documents(() -> new TextLines(file, json::text), file + " (JSON lines, field '" + field + "')", 0);
  }

  /**
   * Each file a document, its whole text, in the list's order.
   *
   * @throws FileFormatException if a file is missing or not a regular file
   */
  public static Documents files(List<Path> files) {
    List<Path> copy = List.copyOf(files);
    copy.forEach(Documents::requireFile);
    Reader<String> reader = () -> PipelineIterator.of(copy.stream().map(Documents::readFile).iterator());
    return new Documents(reader, copy.size() + " files", copy.size());
  }

  /**
   * Every file under {@code directory} (its sub-directories too) whose name ends in {@code .txt} a
   * document, in the order of their paths relative to it (compared as strings, so the order is the
   * same on every machine).
   *
   * @throws FileFormatException if {@code directory} is not a directory, or holds no {@code .txt} file
   * @throws UncheckedIOException if it cannot be listed
   */
  public static Documents directory(Path directory) {
    if (!Files.isDirectory(directory)) {
      throw new FileFormatException(directory, "no such directory");
    }
    List<Path> found = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(directory)) {
      walk.filter(p -> p.getFileName().toString().endsWith(".txt") && Files.isRegularFile(p)).forEach(found::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + directory, e);
    }
    if (found.isEmpty()) {
      throw new FileFormatException(directory, "holds no .txt file");
    }
    found.sort(Comparator.comparing(p -> directory.relativize(p).toString()));
    Documents d = files(found);
    return new Documents(d.reader, directory + " (" + found.size() + " .txt files)", found.size());
  }

  /** The documents as a reader: each pass ({@link Reader#iterator()}) reads them from the first. */
  public Reader<String> reader() {
    return reader;
  }

  /** How many documents there are, where known without reading them (files, collections); else 0. */
  public long count() {
    return count;
  }

  @Override
  public String toString() {
    return "documents of " + description;
  }

  private static void requireFile(Path file) {
    if (!Files.exists(file)) {
      throw new FileFormatException(file, "no such file");
    }
    if (!Files.isRegularFile(file)) {
      throw new FileFormatException(file, "not a regular file");
    }
  }

  private static String readFile(Path file) {
    try {
      return Files.readString(file);
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new FileFormatException(file, "not UTF-8 text (" + e + ")");
    } catch (java.nio.file.NoSuchFileException e) {
      throw new FileFormatException(file, "no such file");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
