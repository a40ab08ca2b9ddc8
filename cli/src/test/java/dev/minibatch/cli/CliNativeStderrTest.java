package dev.minibatch.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.cli.CliTest.Run;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool in a process of its own, its standard error read from the process: libjpeg (inside
 * OpenCV) writes its "Corrupt JPEG data: ..." warnings to the process's file descriptor 2 from
 * native code, past {@code System.err}, so an in-process run cannot see them. A corrupt JPEG must
 * be named once, in the tool's words, and nothing else may reach stderr.
 */
class CliNativeStderrTest {
  @TempDir Path dir;

  /** Runs {@code minibatch ARGS} in a new JVM on the tests' class path, both streams into files. */
  Run fork(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
        Minibatch.class.getName()));
    command.addAll(List.of(args));
    Path out = dir.resolve("stdout");
    Path err = dir.resolve("stderr");
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().put("OMP_NUM_THREADS", "1");
    Process p = pb.start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("minibatch " + String.join(" ", args) + " did not finish in 120 s");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err,
        StandardCharsets.UTF_8));
  }

  @Test
  void aCorruptJpegIsNamedOnceAndLibjpegSaysNothing() throws IOException, InterruptedException {
    // Record 0: five bytes put between the entropy-coded data and the EOI marker (libjpeg warns
    // "extraneous bytes before marker 0xd9"). Record 1: an EOI marker written over two bytes 40
    // bytes before the end, inside the entropy-coded data (libjpeg warns "premature end of data
    // segment"). Record 2 is intact. The JPEGs are javax.imageio's, each ending with FF D9.
    byte[] first = CliCorruptJpegTest.jpeg(1);
    assertEquals(0xD9, first[first.length - 1] & 0xFF);
    byte[] extraneous = Arrays.copyOf(first, first.length + 5);
    System.arraycopy(new byte[] {1, 2, 3, 4, 5, (byte) 0xFF, (byte) 0xD9}, 0, extraneous, first.length - 2, 7);
    byte[] early = CliCorruptJpegTest.jpeg(2);
    early[early.length - 40] = (byte) 0xFF;
    early[early.length - 39] = (byte) 0xD9;
    Path rec = dir.resolve("cars.rec");
    try (RecordIOWriter w = RecordIOWriter.create(rec, dir.resolve("cars.idx"))) {
      w.write(0, ImageRecord.of(0, 0, extraneous).encode());
      w.write(1, ImageRecord.of(1, 1, early).encode());
      w.write(2, ImageRecord.of(2, 0, CliCorruptJpegTest.jpeg(3)).encode());
    }
    long second;
    try (RecordIOFile f = RecordIOFile.builder(rec).open()) {
      second = f.offset(1);
    }

    Run validate = fork("validate", rec.toString());
    assertEquals(1, validate.code(), validate.out() + validate.err());
    List<String> lines = validate.out().lines().toList();
    assertEquals(3, lines.size(), validate.out());
    assertTrue(lines.get(0).startsWith(rec + ": record 0 at offset 0 (image id 0): corrupt JPEG: 5 bytes of "
        + "entropy-coded data"), lines.get(0));
    assertTrue(lines.get(0).endsWith("(libjpeg: extraneous bytes before marker)"), lines.get(0));
    assertTrue(lines.get(1).startsWith(rec + ": record 1 at offset " + second + " (image id 1): corrupt JPEG: the "
        + "entropy-coded data ends at marker 0xFFD9 at byte " + (early.length - 40)), lines.get(1));
    assertEquals(rec + ": 2 problems", lines.get(2));
    assertEquals("", validate.err(), "stderr of validate");

    Run inspect = fork("inspect", rec.toString());
    assertEquals(0, inspect.code(), inspect.err());
    assertTrue(inspect.out().contains("#0: id 0, label 0, JPEG 16x12x3 (corrupt)"), inspect.out());
    assertEquals("", inspect.err(), "stderr of inspect");

    // bench reads record 0 to learn the image size: one line on stderr, naming it as validate does.
    Run bench = fork("bench", "--warmup", "0", "--epochs", "1", rec.toString());
    assertEquals(3, bench.code(), bench.out() + bench.err());
    assertEquals(List.of("minibatch bench: " + lines.get(0)), bench.err().lines().toList());
  }
}
