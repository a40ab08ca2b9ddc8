package dev.minibatch.runtime.report;

import dev.minibatch.runtime.check.IoFailure;
import dev.minibatch.runtime.pipeline.Verdict;
import dev.minibatch.runtime.pipeline.LiveVerdict;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.pipeline.PipelineStats.BadSample;
import dev.minibatch.runtime.pipeline.PipelineStats.StageStats;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * An HTML report of a run's stats: one self-contained file (its script, styles and the stats inline,
 * nothing fetched when it is viewed) that plots the throughput of each epoch over the run's time,
 * each stage's busy and waiting shares, the queue depths, the bad samples and the padding, what
 * autotuning chose ({@link PipelineStats#tuning()}), and gives the verdict of the live verdict's table ({@link LiveVerdict}) on every epoch and on the
 * whole run.
 *
 * <pre>{@code
 * PipelineReport.Builder report = PipelineReport.builder().title("training run");
 * for (int epoch = 0; epoch < 3; epoch++) {
 *   try (BatchIterator<NamedBatch> it = provider.iterator()) {
 *     while (it.hasNext()) { it.next(); }
 *     report.epoch("epoch " + epoch, PipelineStats.of(it));
 *   }
 * }
 * report.build().writeHtml(Path.of("run.html"));
 * }</pre>
 *
 * <p>Each epoch added is one window of the report, in the order added: a point of the throughput
 * plot (the items its last stage delivered, a provider's batches, per second of that stage's wall
 * time, and samples per second where they were given), placed at the end of the window on the
 * run's clock (the windows' wall times added up: the time between epochs is left out). The stats
 * are also in the file as JSON, in {@code <script type="application/json" id="stats">}.
 */
public final class PipelineReport {
  /** The longest list of bad samples the page shows per epoch; their count is always complete. */
  public static final int LISTED_BAD_SAMPLES = 100;

  private final String title;
  private final double threshold;
  private final int cores;
  private final List<Window> windows;

  private PipelineReport(Builder b) {
    this.title = b.title;
    this.threshold = b.threshold;
    this.cores = b.cores;
    this.windows = List.copyOf(b.windows);
  }

  /** A report without epochs yet, titled {@code "minibatch pipeline report"}. */
  public static Builder builder() {
    return new Builder();
  }

  /** One epoch (or any window of stats) of the report. */
  private record Window(String label, PipelineStats stats, long samples) {}

  /** Collects the epochs of a report. Not thread-safe. */
  public static final class Builder {
    private String title = "minibatch pipeline report";
    private double threshold = LiveVerdict.DEFAULT.threshold();
    private int cores = Runtime.getRuntime().availableProcessors();
    private final List<Window> windows = new ArrayList<>();

    private Builder() {}

    /** The page's title and heading. */
    public Builder title(String title) {
      this.title = Objects.requireNonNull(title, "title");
      return this;
    }

    /**
     * The share of a window the consumer may wait for batches before the verdict names a limiting
     * stage; {@link LiveVerdict#DEFAULT}'s (0.2) unless set.
     *
     * @throws IllegalArgumentException if not in (0, 1)
     */
    public Builder threshold(double threshold) {
      // LiveVerdict checks the range, so the report and the live verdict accept the same thresholds.
      this.threshold = new LiveVerdict(threshold, LiveVerdict.DEFAULT.interval()).threshold();
      return this;
    }

    /**
     * The processors of the machine the stats were measured on, which the verdict compares reader
     * threads with; this machine's unless set.
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder cores(int cores) {
      if (cores < 1) {
        throw new IllegalArgumentException("cores must be at least 1, got " + cores);
      }
      this.cores = cores;
      return this;
    }

    /** Adds the stats of one epoch (or any window), e.g. {@code PipelineStats.of(it)} after it ended. */
    public Builder epoch(String label, PipelineStats stats) {
      return add(label, stats, -1);
    }

    /**
     * Adds the stats of one epoch (or any window) that delivered {@code samples} samples, so that
     * the throughput is also plotted in samples per second.
     *
     * @throws IllegalArgumentException if {@code samples} is negative
     */
    public Builder epoch(String label, PipelineStats stats, long samples) {
      if (samples < 0) {
        throw new IllegalArgumentException("samples must be 0 or more, got " + samples);
      }
      return add(label, stats, samples);
    }

    private Builder add(String label, PipelineStats stats, long samples) {
      windows.add(new Window(Objects.requireNonNull(label, "label"), Objects.requireNonNull(stats, "stats"), samples));
      return this;
    }

    /** The report of the epochs added so far. */
    public PipelineReport build() {
      return new PipelineReport(this);
    }
  }

  /** The page, as {@link #writeHtml(Path)} writes it. */
  public String toHtml() {
    String page = template();
    String json = json();
    return page.replace("<!--TITLE-->", html(title)).replace("/*STATS*/", json);
  }

  /**
   * Writes the page to {@code file} (UTF-8, replacing the file).
   *
   * @throws UncheckedIOException naming {@code file} if it cannot be written
   */
  public void writeHtml(Path file) {
    try {
      Files.writeString(file, toHtml(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw IoFailure.of("write", "the pipeline report to " + file, e);
    }
  }

  /**
   * The stats as the page's JSON: every counter as recorded (nanoseconds, items), the verdict and
   * bottleneck of each window and of the run; the page's script computes every share it shows from
   * these counters.
   */
  String json() {
    StringBuilder sb = new StringBuilder(256 + 512 * windows.size());
    sb.append("{\"title\":").append(string(title)).append(",\"threshold\":").append(threshold).append(",\"cores\":")
        .append(cores).append(",\"listedBadSamples\":").append(LISTED_BAD_SAMPLES).append(",\"epochs\":[");
    for (int i = 0; i < windows.size(); i++) {
      Window w = windows.get(i);
      sb.append(i == 0 ? "" : ",").append("{\"label\":").append(string(w.label())).append(",\"samples\":")
          .append(w.samples()).append(",");
      stats(sb, w.label(), w.stats());
      sb.append('}');
    }
    sb.append("],\"run\":");
    Optional<PipelineStats> run = run();
    if (run.isPresent()) {
      sb.append('{');
      stats(sb, "the whole run", run.get());
      sb.append('}');
    } else {
      sb.append("null");
    }
    return sb.append('}').toString();
  }

  private void stats(StringBuilder sb, String label, PipelineStats s) {
    sb.append("\"stages\":[");
    List<StageStats> stages = s.stages();
    for (int k = 0; k < stages.size(); k++) {
      StageStats t = stages.get(k);
      sb.append(k == 0 ? "" : ",").append("{\"name\":").append(string(t.name())).append(",\"workers\":")
          .append(t.workers()).append(",\"items\":").append(t.items()).append(",\"busyNanos\":").append(t.busyNanos())
          .append(",\"waitInputNanos\":").append(t.waitInputNanos()).append(",\"blockedOutputNanos\":")
          .append(t.blockedOutputNanos()).append(",\"consumerWaitNanos\":").append(t.consumerWaitNanos())
          .append(",\"wallNanos\":").append(t.wallNanos()).append(",\"queueDepth\":").append(t.queueDepth())
          .append(",\"queueCapacity\":").append(t.queueCapacity()).append('}');
    }
    sb.append("],\"padding\":{\"realSteps\":").append(s.padding().realSteps()).append(",\"paddedSteps\":")
        .append(s.padding().paddedSteps()).append("},\"badSamples\":").append(s.badSamples().size())
        .append(",\"replacedSamples\":").append(s.badSamples().stream().filter(BadSample::replaced).count())
        .append(",\"listed\":[");
    List<BadSample> bad = s.badSamples();
    for (int k = 0; k < Math.min(LISTED_BAD_SAMPLES, bad.size()); k++) {
      BadSample b = bad.get(k);
      sb.append(k == 0 ? "" : ",").append("{\"epoch\":").append(b.epoch()).append(",\"sample\":").append(b.sample())
          .append(",\"replacement\":").append(b.replacement()).append(",\"cause\":")
          .append(string(String.valueOf(b.cause().getMessage()))).append('}');
    }
    sb.append("],\"tuning\":[");
    List<PipelineStats.Tuning> tuning = s.tuning();
    for (int k = 0; k < tuning.size(); k++) {
      PipelineStats.Tuning t = tuning.get(k);
      sb.append(k == 0 ? "" : ",").append("{\"stage\":").append(string(t.stage())).append(",\"readers\":")
          .append(t.readers()).append(",\"prefetchBuffer\":").append(t.prefetchBuffer()).append(",\"settled\":")
          .append(t.settled()).append(",\"trials\":").append(t.trials()).append(",\"bufferBytes\":")
          .append(t.bufferBytes()).append(",\"cpus\":").append(t.cpus()).append(",\"memoryBytes\":")
          .append(t.memoryBytes()).append('}');
    }
    sb.append("],\"bottleneck\":").append(string(s.bottleneck())).append(",\"verdict\":");
    // The live verdict's own table, on the whole window; the stats hold no CPU time (-1).
    String provider = s.stages().isEmpty() ? label : s.stages().get(s.stages().size() - 1).name() + ", " + label;
    Optional<Verdict> v = Verdict.of(provider, s, threshold, -1, cores);
    if (v.isPresent()) {
      sb.append("{\"stage\":").append(string(v.get().stage())).append(",\"knob\":").append(string(v.get().knob()))
          .append(",\"line\":").append(string(v.get().line())).append('}');
    } else {
      sb.append("null");
    }
  }

  /**
   * The windows' counters added up, stage by stage, when every window lists the same stages (the
   * queue depths and capacities of the last one); empty without windows or when they differ.
   */
  private Optional<PipelineStats> run() {
    if (windows.isEmpty() || windows.get(0).stats().stages().isEmpty()) {
      return Optional.empty();
    }
    List<StageStats> first = windows.get(0).stats().stages();
    long[][] sums = new long[first.size()][7];
    List<BadSample> bad = new ArrayList<>();
    long real = 0;
    long padded = 0;
    PipelineStats last = windows.get(windows.size() - 1).stats();
    for (Window w : windows) {
      List<StageStats> stages = w.stats().stages();
      if (stages.size() != first.size()) {
        return Optional.empty();
      }
      for (int k = 0; k < stages.size(); k++) {
        StageStats s = stages.get(k);
        if (!s.name().equals(first.get(k).name())) {
          return Optional.empty();
        }
        // An autotuned stage's workers change between windows: their worker time adds up.
        sums[k][6] += s.wallNanos() * s.workers();
        long[] sum = sums[k];
        sum[0] += s.items();
        sum[1] += s.busyNanos();
        sum[2] += s.waitInputNanos();
        sum[3] += s.blockedOutputNanos();
        sum[4] += s.consumerWaitNanos();
        sum[5] += s.wallNanos();
      }
      bad.addAll(w.stats().badSamples());
      real += w.stats().padding().realSteps();
      padded += w.stats().padding().paddedSteps();
    }
    List<StageStats> out = new ArrayList<>();
    for (int k = 0; k < first.size(); k++) {
      StageStats s = last.stages().get(k);
      long[] sum = sums[k];
      // The workers over the run: its worker time over its wall time (the same as every window's when
      // they did not change).
      int workers = (int) Math.round(sum[5] == 0 ? s.workers() : sum[6] / (double) sum[5]);
      out.add(new StageStats(s.name(), workers, sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], s.queueDepth(),
          s.queueCapacity()));
    }
    return Optional.of(new PipelineStats(out, new PipelineStats.PaddingStats(real, padded)).withBadSamples(bad)
        .withTuning(last.tuning()));
  }

  private static String template() {
    try (InputStream in = PipelineReport.class.getResourceAsStream("report.html")) {
      if (in == null) {
        throw new IllegalStateException("the report's page template report.html is missing from the runtime's jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the report's page template report.html", e);
    }
  }

  /** {@code s} as a JSON string that is also safe inside a script element ({@code <} escaped). */
  static String string(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }

  private static String html(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  @Override
  public String toString() {
    return "PipelineReport[" + title + ", " + windows.size() + " epochs]";
  }
}
