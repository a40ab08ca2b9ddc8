package dev.minibatch.cli;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.engine.PrefetchingProvider;
import dev.minibatch.runtime.pipeline.Progress;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.Location;
import dev.minibatch.runtime.pipeline.PipelineIterator;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import dev.minibatch.runtime.spi.EngineProvider;
import dev.minibatch.runtime.pipeline.LiveVerdict;
import dev.minibatch.runtime.report.PipelineReport;
import dev.minibatch.runtime.trace.PipelineTrace;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code minibatch bench FILE}. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Measures the file's provider (MnistProvider or ArrayDataProvider for idx, CsvProvider, Hdf5Provider, "
        + "ImageRecordProvider for RecordIO .rec, ShardProvider for a shard set) as a training loop "
        + "would use it: the load time, then after a warm-up epoch, per epoch samples/s and MB/s of batches delivered, the time of "
        + "each stage (busy, waiting, blocked, queue depth) and the bottleneck. The loop does no work, so the "
        + "bottleneck names the slowest loading stage; 'consumer' would mean loading outpaces even an empty loop. "
        + "A file with fewer samples than --batch is read in batches of all its samples (said on standard error)."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  minibatch bench t10k-images-idx3-ubyte.gz",
        "      a warm-up epoch, then 3 epochs of 128 in order",
        "  minibatch bench --batch 256 --shuffle --seed 1 --epochs 5 iris.csv",
        "  minibatch bench --prefetch train.h5",
        "      the next batch made on a background thread while the loop runs",
        "  minibatch bench --batch 32 train.rec",
        "      MXNet image records at the first image's size; packed labels (flag > 0) as the file has them",
        "  minibatch bench --trace bench.json train.rec",
        "      also writes every stage's work and waits per thread; open bench.json in ui.perfetto.dev",
        "  minibatch bench --report bench.html train.rec",
        "      also writes a page of plots of every epoch's stats and the verdict; open it in a browser"})
final class BenchCommand implements Callable<Integer> {
  @ParentCommand Minibatch parent;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Mixin InputMixin input;

  @Option(names = "--batch", paramLabel = "N", defaultValue = "128", description = "Rows per batch, at least 1 (default: ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--epochs", paramLabel = "N", defaultValue = "3", description = "Epochs to run, at least 1 (default: ${DEFAULT-VALUE}).")
  int epochs;

  @Option(names = "--warmup", paramLabel = "N", defaultValue = "1",
      description = "Epochs run first and not counted in 'best', 0 or more (the first pays for ND4J's native start "
          + "and the JIT; default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--shuffle", description = "Shuffle every epoch.")
  boolean shuffle;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "0", description = "The shuffle seed (default: ${DEFAULT-VALUE}).")
  long seed;

  /** Batches of {@code batch} rows, shuffled with the seed if --shuffle. */
  private Settings settings(int batch) {
    return Settings.builder().batchSize(batch).shuffle(shuffle).seed(seed).build();
  }

  @Option(names = "--prefetch", description = "Wrap the provider in PrefetchingProvider (one background thread).")
  boolean prefetch;

  @Option(names = "--trace", paramLabel = "FILE",
      description = "Also write a trace of the run, warm-up included, to FILE: every stage's work and waits per thread "
          + "as Chrome trace-event JSON, for Perfetto's UI (ui.perfetto.dev) or chrome://tracing.")
  @Nullable Path trace;

  @Option(names = "--report", paramLabel = "FILE",
      description = "Also write an HTML report of the run, warm-up included, to FILE: one self-contained page (it "
          + "fetches nothing) with plots of each epoch's throughput, each stage's busy and waiting shares, the queue "
          + "depths, bad samples and padding, and the verdict on which stage limits and what would help.")
  @Nullable Path report;

  @Option(names = "--progress", negatable = true,
      description = "Draw a progress bar per epoch on standard error (default: only when it is a terminal, so "
          + "pipes and CI logs get no control characters).")
  @Nullable Boolean progress;

  @Parameters(paramLabel = "FILE", description = "The file, folder or shard set to read: a local path, or a URI "
      + "(hdfs://, s3a://) of a format that reads one.")
  String arg;

  /** What one epoch delivered. */
  record Epoch(long batches, long samples, long bytes, double seconds, PipelineStats stats) {}

  @Override
  public Integer call() throws Exception {
    OptionRange.atLeast(spec, "--batch", batch, 1);
    OptionRange.atLeast(spec, "--epochs", epochs, 1);
    OptionRange.atLeast(spec, "--warmup", warmup, 0);
    PrintWriter out = spec.commandLine().getOut();
    Location file = input.location(arg);
    Format format = Formats.load(Minibatch.class.getClassLoader()).of(file, input.format);
    long fileBytes = Bytes.length(file);
    if (trace != null) {
      Outputs.checkWritable(trace, "the pipeline trace");
    }
    if (report != null) {
      Outputs.checkWritable(report, "the pipeline report");
    }
    long t0 = System.nanoTime();
    BatchProvider<? extends Batch> built = format.provider(file, input.options(0, settings(batch)));
    if (built instanceof EngineProvider<?> e && e.shardSize() < built.batchSize()) {
      // A batch larger than the file would be mostly padding (or, for round_batch providers, is
      // refused): measure batches of the whole file instead.
      int samples = e.shardSize();
      built.close();
      t0 = System.nanoTime();
      built = format.provider(file, input.options(0, settings(samples)));
    }
    double load = (System.nanoTime() - t0) / 1e9;
    if (built.batchSize() < batch) {
      parent.err.println("minibatch bench: " + file + " holds " + built.batchSize() + " samples, fewer than --batch "
          + batch + ": measuring batches of " + built.batchSize());
      parent.err.flush();
    }
    try (BatchProvider<? extends Batch> p = prefetch ? PrefetchingProvider.of(built) : built) {
      out.println("file:     " + file + " (" + (fileBytes < 0 ? "" : Bytes.count(fileBytes) + ", ") + format.name() + ")");
      out.println("provider: " + built.getClass().getSimpleName() + (prefetch ? " in PrefetchingProvider" : "") + ", "
          + describe(p));
      out.printf(Locale.ROOT, "load:     %.3f s (read, parse and decode the file%s)%n", load,
          fileBytes < 0 ? "" : ": " + Bytes.rate(fileBytes, load) + " of file");
      long rowBytes = 0;
      for (DataDesc d : concat(p.provideData(), p.provideLabel())) {
        rowBytes += d.sampleShape().elementCount() * d.dtype().byteSize();
      }
      long expected = built instanceof EngineProvider<?> e ? (e.shardSize() + p.batchSize() - 1) / p.batchSize() : 0;
      List<Epoch> all = new ArrayList<>();
      PipelineReport.Builder pages = PipelineReport.builder().title("minibatch bench " + file + " (" + format.name() + ", "
          + built.getClass().getSimpleName() + (prefetch ? " in PrefetchingProvider" : "") + ", batches of "
          + p.batchSize() + ")");
      @Nullable PipelineTrace tracing = trace == null ? null : PipelineTrace.start();
      // The run prints its own bottleneck line per epoch: the live verdict's log line would repeat it.
      java.util.Optional<LiveVerdict> verdict = LiveVerdict.current();
      LiveVerdict.off();
      try {
        for (int e = 1 - warmup; e <= epochs; e++) {
          String name = e < 1 ? "warm-up " + (e + warmup) : "epoch " + e;
          Epoch r = epoch(p, name, expected, rowBytes);
          if (e >= 1) {
            all.add(r);
          }
          pages.epoch(name, r.stats(), r.samples());
          out.printf(Locale.ROOT, "%-9s %d samples in %d batches (%s), %.3f s: %s samples/s, %s of batches, "
              + "bottleneck: %s%n", name + ":", r.samples(), r.batches(), Bytes.count(r.bytes()), r.seconds(),
              rate(r.samples() / r.seconds()), Bytes.rate(r.bytes(), r.seconds()), r.stats().bottleneck());
          out.flush();
        }
      } finally {
        verdict.ifPresent(LiveVerdict::set);
        if (tracing != null) {
          tracing.stop();
        }
      }
      Epoch best = all.stream().min(java.util.Comparator.comparingDouble(Epoch::seconds)).orElseThrow();
      out.printf(Locale.ROOT, "best:     %s samples/s, %s of batches%n", rate(best.samples() / best.seconds()),
          Bytes.rate(best.bytes(), best.seconds()));
      out.println("stages of the last epoch, source first (times summed over a stage's threads):");
      PipelineStats stats = all.get(all.size() - 1).stats();
      for (StageStats s : stats.stages()) {
        out.printf(Locale.ROOT, "  %-22s %6d batches  busy %7.3f s  waiting for input %7.3f s  blocked %7.3f s  "
            + "consumer waited %7.3f s  queue %d/%d%n", s.name() + "[" + s.workers() + "]", s.items(), s.busyNanos() / 1e9,
            s.waitInputNanos() / 1e9, s.blockedOutputNanos() / 1e9, s.consumerWaitNanos() / 1e9, s.queueDepth(),
            s.queueCapacity());
      }
      out.println("  " + stats.summary());
      out.println("bottleneck: " + stats.bottleneck());
      if (tracing != null && trace != null) {
        tracing.writeJson(trace);
        out.println("trace:    " + trace + " (" + tracing.events() + " events, " + tracing.droppedEvents()
            + " dropped; open it in ui.perfetto.dev or chrome://tracing)");
      }
      if (report != null) {
        pages.build().writeHtml(report);
        out.println("report:   " + report + " (" + (warmup + epochs) + " epochs; open it in a browser)");
      }
    }
    return Minibatch.ExitCode.OK;
  }

  private <B extends Batch> Epoch epoch(BatchProvider<B> p, String task, long expected, long rowBytes) {
    long batches = 0;
    long samples = 0;
    long rows = 0;
    long t0 = System.nanoTime();
    PipelineStats stats;
    boolean bar = progress != null ? progress : Terminal.isTerminal(parent.err);
    try (PipelineIterator<B> it = bar ? Progress.track(PipelineIterator.of(p.iterator()), task, expected, parent.err)
        : PipelineIterator.of(p.iterator())) {
      while (it.hasNext()) {
        B b = it.next();
        batches++;
        samples += b.countSamples();
        rows += b.countSamples() + b.pad();
      }
      stats = it.stats();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    return new Epoch(batches, samples, rows * rowBytes, seconds, stats);
  }

  private static String describe(BatchProvider<?> p) {
    StringBuilder sb = new StringBuilder();
    for (DataDesc d : concat(p.provideData(), p.provideLabel())) {
      sb.append(sb.length() == 0 ? "" : ", ").append(d.name()).append(' ')
          .append(Format.Report.shape(d.shape().toLongArray())).append(' ').append(d.dtype());
    }
    return sb.toString();
  }

  private static List<DataDesc> concat(List<DataDesc> a, List<DataDesc> b) {
    List<DataDesc> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static String rate(double perSecond) {
    return perSecond >= 1e6 ? String.format(Locale.ROOT, "%.2f M", perSecond / 1e6)
        : perSecond >= 1e3 ? String.format(Locale.ROOT, "%.1f k", perSecond / 1e3) : String.format(Locale.ROOT, "%.0f", perSecond);
  }
}
