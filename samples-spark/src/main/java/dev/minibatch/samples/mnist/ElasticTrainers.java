package dev.minibatch.samples.mnist;

import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.shards.ShardProvider;
import dev.minibatch.shards.ShardSet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The elastic run on a shard set written by {@link WriteMnistShards}: {@code trainers} trainer
 * processes ({@link ElasticTrainer}) read epoch 0 in the global order and save a checkpoint after the
 * same number of batches; trainer {@code killed} is then killed (SIGKILL) while it reads on, the job
 * stops, and {@code resumeWith} new processes restore the checkpoint and read the rest of the epoch.
 *
 * <p>The driver then checks what the trainers wrote against the global order, which it reads itself
 * in one process with the same settings: trainer {@code p} of {@code k} delivered global batches
 * {@code s + p, s + p + k, …} from position {@code s}; the batches before the checkpoint and those after
 * the resume hold every sample of the set exactly once. Every row was also checked by its trainer
 * against the bundled digit its index names. Any difference ends the run with an {@link
 * IllegalStateException} that names the trainer, the batch and the samples.
 */
public final class ElasticTrainers {
  private ElasticTrainers() {}

  /**
   * Settings.
   *
   * @param directory the shard set
   * @param trainers trainer processes before the kill
   * @param killed the trainer that is killed
   * @param resumeWith trainer processes after the resume
   * @param checkpointAfter batches each trainer reads before the checkpoint; 0: half its part of the epoch
   * @param extra batches each trainer delivers after the checkpoint, before the job stops (lost work)
   * @param batch samples per batch
   * @param window the shuffle window, samples
   * @param seed the seed of the global order
   * @param work a directory for the trainers' outputs (a new directory is made in it per run)
   * @param classPath the class path of the trainer processes
   */
  public record Options(String directory, int trainers, int killed, int resumeWith, int checkpointAfter, int extra,
      int batch, int window, long seed, Path work, String classPath) {
    /**
     * Reads {@code --dir D --trainers N --kill P --resume-with N --checkpoint-after N --extra N --batch N
     * --window N --seed N --work D}; defaults: {@code target/mnist-shards} (where {@link WriteMnistShards}
     * writes), 4 trainers, trainer 2 killed, 3 after the resume, a checkpoint in the middle of the epoch,
     * 50 batches more, batches of 128, a window of 20 000, seed 7, outputs under {@code
     * target/elastic-trainers}, this JVM's class path.
     *
     * @throws IllegalArgumentException for an unknown option, a missing value or a value out of range
     */
    public static Options parse(String... args) {
      String dir = "target/mnist-shards";
      int trainers = 4;
      int killed = 2;
      int resumeWith = 3;
      int checkpointAfter = 0;
      int extra = 50;
      int batch = 128;
      int window = 20_000;
      long seed = 7;
      String work = "target/elastic-trainers";
      for (int i = 0; i < args.length; i += 2) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("option " + args[i] + " needs a value");
        }
        String v = args[i + 1];
        switch (args[i]) {
          case "--dir" -> dir = v;
          case "--trainers" -> trainers = Integer.parseInt(v);
          case "--kill" -> killed = Integer.parseInt(v);
          case "--resume-with" -> resumeWith = Integer.parseInt(v);
          case "--checkpoint-after" -> checkpointAfter = Integer.parseInt(v);
          case "--extra" -> extra = Integer.parseInt(v);
          case "--batch" -> batch = Integer.parseInt(v);
          case "--window" -> window = Integer.parseInt(v);
          case "--seed" -> seed = Long.parseLong(v);
          case "--work" -> work = v;
          default -> throw new IllegalArgumentException("unknown option " + args[i] + "; known: --dir --trainers"
              + " --kill --resume-with --checkpoint-after --extra --batch --window --seed --work");
        }
      }
      return new Options(dir, trainers, killed, resumeWith, checkpointAfter, extra, batch, window, seed,
          Path.of(work), System.getProperty("java.class.path"));
    }

    /** These options with the trainers started on {@code path}. */
    public Options withClassPath(String path) {
      return new Options(directory, trainers, killed, resumeWith, checkpointAfter, extra, batch, window, seed, work,
          path);
    }
  }

  /**
   * What the run did; every count was checked against the global order before this is returned.
   *
   * @param samples samples in the set, each read exactly once in the epoch
   * @param globalBatches batches of the epoch over all trainers
   * @param trainers trainer processes before the kill
   * @param checkpoint the checkpoint's position: global batches before it
   * @param resumedBatches batches each resumed trainer read
   * @param outputs the directory that holds each trainer's batches ({@code first-P}, {@code resumed-P})
   * @param firstSeconds from starting the trainers to the last one's checkpoint
   * @param resumeFirstBatchSeconds the longest time a resumed trainer took from its start to its first batch
   * @param resumeSeconds the longest time a resumed trainer took to read its part of the epoch
   */
  public record Report(long samples, int globalBatches, int trainers, long checkpoint, int[] resumedBatches, Path outputs,
      double firstSeconds, double resumeFirstBatchSeconds, double resumeSeconds) {
    /** One line for the console. */
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%d samples, %d global batches: %d trainers checkpointed at global batch %d"
              + " in %.1f s, one was killed; %d resumed trainers read %s batches (first batch after %.2f s, done in"
              + " %.1f s); every sample exactly once, in the global order", samples, globalBatches,
          trainers, checkpoint, firstSeconds, resumedBatches.length, Arrays.toString(resumedBatches),
          resumeFirstBatchSeconds, resumeSeconds);
    }
  }

  /** Runs {@code o} and checks it; see the class comment. */
  public static Report run(Options o) {
    if (o.killed() < 0 || o.killed() >= o.trainers() || o.resumeWith() < 1) {
      throw new IllegalArgumentException("--kill must name one of the " + o.trainers() + " trainers (0 to "
          + (o.trainers() - 1) + ") and --resume-with must be at least 1; got " + o.killed() + " and " + o.resumeWith());
    }
    long samples = ShardSet.open(o.directory()).samples();
    List<long[]> global = globalOrder(o, samples);
    int perTrainer = global.size() / o.trainers();
    int checkpointAfter = o.checkpointAfter() > 0 ? o.checkpointAfter() : perTrainer / 2;
    if (checkpointAfter < 1 || checkpointAfter + o.extra() > perTrainer) {
      throw new IllegalArgumentException("each of " + o.trainers() + " trainers reads " + perTrainer + " batches"
          + " of the epoch: the checkpoint (" + checkpointAfter + ") and the batches after it (" + o.extra()
          + ") must fit in that");
    }
    try {
      Files.createDirectories(o.work());
      Path out = Files.createTempDirectory(o.work(), "run-");
      double firstSeconds;
      Trainers first = new Trainers(o, out, checkpointAfter);
      try {
        long t0 = System.nanoTime();
        for (int p = 0; p < o.trainers(); p++) {
          first.start(o.trainers(), p, "-", "first-" + p);
        }
        for (int p = 0; p < o.trainers(); p++) {
          first.expect(p, "checkpoint");
        }
        firstSeconds = (System.nanoTime() - t0) / 1e9;
        for (int p = 0; p < o.trainers(); p++) {
          first.expect(p, "waiting");
        }
        first.kill(o.killed());
      } finally {
        first.close(); // the job stops: the others end too
      }

      String state = Files.readString(out.resolve("first-0.state"));
      for (int p = 1; p < o.trainers(); p++) {
        if (!state.equals(Files.readString(out.resolve("first-" + p + ".state")))) {
          throw new IllegalStateException("trainer " + p + " saved another state than trainer 0 at the same step");
        }
      }
      long checkpoint = IterationState.decode(state).position();
      if (checkpoint != (long) checkpointAfter * o.trainers()) {
        throw new IllegalStateException("the checkpoint is at global batch " + checkpoint + ", not "
            + checkpointAfter + " x " + o.trainers());
      }
      int[] seen = new int[Math.toIntExact(samples)];
      for (int p = 0; p < o.trainers(); p++) {
        List<long[]> lines = lines(out.resolve("first-" + p));
        if (lines.size() != checkpointAfter + o.extra()) {
          throw new IllegalStateException("trainer " + p + " delivered " + lines.size() + " batches before the"
              + " job stopped, not " + (checkpointAfter + o.extra()));
        }
        compare(global, lines.subList(0, checkpointAfter), p, o.trainers(), 0, "first-" + p, seen);
      }

      Trainers resumed = new Trainers(o, out, checkpointAfter);
      int[] counts = new int[o.resumeWith()];
      double resumeFirst = 0;
      double resumeAll = 0;
      try (resumed) {
        for (int p = 0; p < o.resumeWith(); p++) {
          resumed.start(o.resumeWith(), p, out.resolve("first-0.state").toString(), "resumed-" + p);
        }
        for (int p = 0; p < o.resumeWith(); p++) {
          String[] done = resumed.expect(p, "done").split(" ");
          counts[p] = Integer.parseInt(done[1]);
          resumeFirst = Math.max(resumeFirst, Double.parseDouble(done[2]));
          resumeAll = Math.max(resumeAll, Double.parseDouble(done[3]));
          resumed.awaitExit(p);
        }
      }
      for (int p = 0; p < o.resumeWith(); p++) {
        List<long[]> lines = lines(out.resolve("resumed-" + p));
        int expected = share(global.size() - (int) checkpoint, o.resumeWith(), p);
        if (lines.size() != expected || counts[p] != expected) {
          throw new IllegalStateException("resumed trainer " + p + " read " + lines.size() + " batches, not "
              + expected);
        }
        compare(global, lines, p, o.resumeWith(), (int) checkpoint, "resumed-" + p, seen);
      }
      for (int i = 0; i < seen.length; i++) {
        if (seen[i] != 1) {
          throw new IllegalStateException("sample " + i + " was read " + seen[i] + " times in the epoch");
        }
      }
      return new Report(samples, global.size(), o.trainers(), checkpoint, counts, out, firstSeconds, resumeFirst,
          resumeAll);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Batches a trainer {@code p} of {@code k} gets of {@code batches} dealt in turn. */
  static int share(int batches, int k, int p) {
    return batches / k + (p < batches % k ? 1 : 0);
  }

  /** Epoch 0 in one process with the trainers' settings: the global order. */
  private static List<long[]> globalOrder(Options o, long samples) {
    List<long[]> out = new ArrayList<>();
    try (ShardProvider p = ElasticTrainer.settings(o.directory(), o.batch(), o.window(), o.seed()).build()) {
      for (NamedBatch b : p) {
        out.add(ElasticTrainer.indices(b));
      }
    }
    long read = out.stream().mapToLong(b -> b.length).sum();
    if (read != samples) {
      throw new IllegalStateException("the global order holds " + read + " samples; the set has " + samples);
    }
    return out;
  }

  /** Checks that line {@code j} of {@code lines} is global batch {@code from + p + k·j}, and counts its samples. */
  private static void compare(List<long[]> global, List<long[]> lines, int p, int k, int from, String trainer,
      int[] seen) {
    for (int j = 0; j < lines.size(); j++) {
      int g = from + p + k * j;
      if (!Arrays.equals(global.get(g), lines.get(j))) {
        throw new IllegalStateException(trainer + " batch " + j + " is not global batch " + g + ": read "
            + Arrays.toString(lines.get(j)) + ", the global order has " + Arrays.toString(global.get(g)));
      }
      for (long i : lines.get(j)) {
        seen[(int) i]++;
      }
    }
  }

  private static List<long[]> lines(Path file) throws IOException {
    List<long[]> out = new ArrayList<>();
    for (String l : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
      out.add(Arrays.stream(l.split(" ")).mapToLong(Long::parseLong).toArray());
    }
    return out;
  }

  /** The trainer processes of one phase; closing them kills those still running. */
  private static final class Trainers implements AutoCloseable {
    private final Options o;
    private final Path out;
    private final int checkpointAfter;
    private final Map<Integer, Process> processes = new HashMap<>();
    private final Map<Integer, BufferedReader> consoles = new HashMap<>();
    private final Map<Integer, String> names = new HashMap<>();

    Trainers(Options o, Path out, int checkpointAfter) {
      this.o = o;
      this.out = out;
      this.checkpointAfter = checkpointAfter;
    }

    void start(int parts, int part, String state, String name) throws IOException {
      List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
          "-cp", o.classPath(), ElasticTrainer.class.getName(), o.directory(), Integer.toString(parts),
          Integer.toString(part), state, out.resolve(name).toString(), Integer.toString(checkpointAfter),
          Integer.toString(o.extra()), Integer.toString(o.batch()), Integer.toString(o.window()),
          Long.toString(o.seed()));
      ProcessBuilder pb = new ProcessBuilder(command).redirectError(out.resolve(name + ".err").toFile());
      pb.environment().put("OMP_NUM_THREADS", "1");
      Process p = pb.start();
      processes.put(part, p);
      names.put(part, name);
      consoles.put(part, new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
    }

    /** The trainer's next line, which must start with {@code expected}. */
    String expect(int part, String expected) throws IOException {
      String line = consoles.get(part).readLine();
      if (line == null || !line.startsWith(expected)) {
        throw new IllegalStateException(names.get(part) + " printed " + (line == null ? "nothing more" : "'" + line + "'")
            + " where '" + expected + "' was due; its stderr:\n" + Files.readString(out.resolve(names.get(part) + ".err")));
      }
      return line;
    }

    void kill(int part) throws IOException {
      Process p = processes.get(part);
      p.destroyForcibly();
      try {
        if (!p.waitFor(1, TimeUnit.MINUTES)) {
          throw new IllegalStateException(names.get(part) + " did not end within a minute of being killed");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while killing " + names.get(part), e);
      }
    }

    void awaitExit(int part) throws IOException {
      Process p = processes.get(part);
      try {
        if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
          throw new IllegalStateException(names.get(part) + " did not end with status 0; its stderr:\n"
              + Files.readString(out.resolve(names.get(part) + ".err")));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + names.get(part), e);
      }
    }

    @Override
    public void close() throws IOException {
      for (int part : processes.keySet()) {
        if (processes.get(part).isAlive()) {
          kill(part);
        }
      }
      for (BufferedReader r : consoles.values()) {
        r.close();
      }
    }
  }

  /** Runs with {@code args} ({@link Options#parse}) and prints the report. */
  public static void main(String[] args) {
    System.out.println(run(Options.parse(args)));
  }
}
