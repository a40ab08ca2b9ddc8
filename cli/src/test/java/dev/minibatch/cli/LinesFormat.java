package dev.minibatch.cli;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.LocalFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A format plugged in as a service : text files starting with {@code #lines}, one
 * number per line. It shows that a service is tried before CSV, which would take any text.
 */
public final class LinesFormat implements LocalFormat {
  static final String MAGIC = "#lines";

  @Override
  public String name() {
    return "lines";
  }

  @Override
  public boolean probe(Path file, byte[] head) {
    return new String(head, StandardCharsets.US_ASCII).startsWith(MAGIC);
  }

  private static List<String> values(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      return lines.subList(1, lines.size());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Report describe(Path file, Options options) {
    return new Report().field("format", "lines").field("samples", Integer.toString(values(file).size()));
  }

  @Override
  public void validate(Path file, Options options, Problems problems) {
    List<String> v = values(file);
    for (int i = 0; i < v.size(); i++) {
      try {
        Float.parseFloat(v.get(i));
      } catch (NumberFormatException e) {
        problems.report(file + ":" + (i + 2), "not a number: '" + v.get(i) + "'");
      }
    }
  }

  @Override
  public BatchProvider<? extends Batch> provider(Path file, Options options) {
    float[] x = new float[values(file).size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = Float.parseFloat(values(file).get(i));
    }
    return ArrayDataProvider.builder().data(Nd4j.createFromArray(x).reshape(x.length, 1)).batchSize(options.batchSize()).build();
  }
}
