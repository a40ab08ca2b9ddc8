package dev.minibatch.runtime.io.image;

import static dev.minibatch.benchmarks.io.ImagePairs.column;
import static dev.minibatch.benchmarks.io.ImagePairs.print;
import static dev.minibatch.benchmarks.io.ImagePairs.rates;

import dev.minibatch.benchmarks.io.ImagePairs.Epoch;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordIOWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Issue 24's figures, in {@link dev.minibatch.benchmarks.io.ImagePairs}' style (paired rounds, each
 * ratio taken within a round, median and range over the rounds): {@code ImageRecordProvider} with
 * {@code reducedDecode(true)} and {@code (false)} against the full-decode loop, on 1 and 2 threads,
 * for three workloads over {@value #IMAGES} JPEGs made once at setup (JpegCheckBenchmark's
 * pictures, quality 90, about 4 bits per pixel like an ImageNet photo):
 *
 * <ul>
 *   <li>500x375 → torchvision's RandomResizedCrop (area 0.08–1, ratio 3/4–4/3) → 224x224;
 *   <li>256x256 → random crop 224x224 (no resize);
 *   <li>500x375 → RandomResizedCrop → 112x112, where the reduction applies to most boxes.
 * </ul>
 *
 * <p>Every variant writes float32 NCHW with ImageNet's mean/std, batches of {@value #BATCH}. The
 * full-decode loop is the limit a loader that decodes at full size can reach: on {@code threads}
 * threads (the caller and a pool, each a contiguous share of the images), OpenCV {@code imdecode}
 * of each JPEG from native memory at full size, the same crop box (the runtime's own {@link
 * ResizedCropBox} and seeded draws, or a random 224 window), bilinear resize to the output, then
 * the planes written by {@code split} + {@code convertTo} into a ring of batch buffers. No record
 * reading, shuffling or engine.
 *
 * <p>In the runtime's package (in this module) for {@code ResizedCropBox} and {@code
 * JpegCheckBenchmark}'s pictures. Run: {@code mvn -B -ntp -pl benchmarks -am -DskipTests package},
 * then {@code java -cp "benchmarks/target/classes:runtime/target/classes:api/target/classes:$(cat
 * /tmp/cp)" dev.minibatch.runtime.io.image.ReducedDecodePairs 10} with the class path from {@code
 * mvn -pl benchmarks dependency:build-classpath -Dmdep.outputFile=/tmp/cp}.
 */
public final class ReducedDecodePairs {
  static final int IMAGES = 256;
  static final int BATCH = 32;
  static final long SEED = 24;
  static final float[] MEAN = {123.68f, 116.28f, 103.53f};
  static final float[] STD = {58.395f, 57.12f, 57.375f};

  private ReducedDecodePairs() {}

  /** One epoch of one variant. */
  /** One workload: its images, output side and crop. */
  private record Workload(String name, List<byte[]> jpegs, Path rec, int out, boolean resizedCrop) {}

  /** Runs {@code args[0]} rounds (default 10) after two warm-up rounds and prints rates and ratios. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    OpenCv.require();
    Path dir = Files.createTempDirectory("minibatch-reduced-decode");
    List<byte[]> big = JpegCheckBenchmark.Images.pictures(IMAGES, 375, 500, false);
    List<byte[]> small = JpegCheckBenchmark.Images.pictures(IMAGES, 256, 256, false);
    Path bigRec = write(dir.resolve("500x375.rec"), big);
    Path smallRec = write(dir.resolve("256x256.rec"), small);
    List<Workload> workloads = List.of(
        new Workload("500x375 -> RandomResizedCrop 224", big, bigRec, 224, true),
        new Workload("256x256 -> random crop 224", small, smallRec, 224, false),
        new Workload("500x375 -> RandomResizedCrop 112", big, bigRec, 112, true));
    List<String> names = new ArrayList<>();
    List<Epoch> epochs = new ArrayList<>();
    List<AutoCloseable> closers = new ArrayList<>();
    for (Workload w : workloads) {
      for (int n = 1; n <= 2; n++) {
        for (boolean reduced : new boolean[] {true, false}) {
          Consumer<ImageRecordProvider.Augment> crop = w.resizedCrop
              ? a -> a.randomResizedCrop(true) : a -> a.randCrop(true);
          ImageRecordProvider p = ImageRecordProvider.builder().pathImgrec(w.rec).pathImgidx(idx(w.rec)).dataShape(3, w.out, w.out)
              .batchSize(BATCH).shuffle(true).seed(SEED).augment(crop)
              .normalize(z -> z.meanRgb(MEAN[0], MEAN[1], MEAN[2]).stdRgb(STD[0], STD[1], STD[2]))
              .reducedDecode(reduced).preprocessThreads(n).build();
          closers.add(p);
          names.add(w.name + ", reducedDecode(" + reduced + "), " + n);
          epochs.add(() -> {
            long rows = 0;
            for (NamedBatch b : p) {
              rows += b.countSamples();
            }
            if (rows != IMAGES) {
              throw new IllegalStateException("an epoch delivered " + rows + " images");
            }
          });
        }
        FullDecodeLoop loop = new FullDecodeLoop(w.jpegs, w.out, w.resizedCrop, false, n, SEED, BATCH);
        closers.add(loop);
        names.add(w.name + ", full-decode loop, " + n);
        epochs.add(loop::epoch);
      }
    }
    int k = epochs.size();
    double[][] rate = rates(epochs, rounds, IMAGES);
    for (AutoCloseable c : closers) {
      c.close();
    }
    for (Path f : new Path[] {bigRec, idx(bigRec), smallRec, idx(smallRec), dir}) {
      Files.delete(f);
    }
    System.out.println("images/s, median (min-max) over " + rounds + " rounds:");
    for (int v = 0; v < k; v++) {
      int vv = v;
      print(names.get(v), column(rate, r -> r[vv]));
    }
    System.out.println("ratios within each round, median (min-max):");
    for (int w = 0; w < workloads.size(); w++) {
      for (int n = 1; n <= 2; n++) {
        int base = (w * 2 + n - 1) * 3;
        String at = workloads.get(w).name + ", " + n + " thread" + (n == 1 ? "" : "s");
        print(at + ": reduced / full-decode loop", column(rate, r -> r[base] / r[base + 2]));
        print(at + ": full / full-decode loop", column(rate, r -> r[base + 1] / r[base + 2]));
        print(at + ": reduced / full", column(rate, r -> r[base] / r[base + 1]));
      }
    }
    System.exit(0);
  }

  private static Path idx(Path rec) {
    return rec.resolveSibling(rec.getFileName().toString().replace(".rec", ".idx"));
  }

  private static Path write(Path rec, List<byte[]> jpegs) {
    try (RecordIOWriter w = RecordIOWriter.create(rec, idx(rec))) {
      for (int i = 0; i < jpegs.size(); i++) {
        w.write(i, ImageRecord.of(i, i % 10, jpegs.get(i)).encode());
      }
    }
    return rec;
  }
}
