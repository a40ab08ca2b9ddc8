package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.leptonica.PIX;
import org.bytedeco.leptonica.global.lept;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * The JPEG decoders within reach of the JVM against PIL's, on the JPEGs of {@link ImagenetPairs}
 * (docs/performance.md, "Which libjpeg-turbo decodes"): per round, in turn, the CPU milliseconds per
 * image of OpenCV's {@code imdecode} (what the image providers use), of Leptonica's {@code
 * pixReadMemJpeg} (its own build of libjpeg-turbo, pixels packed into 32-bit words), and of PIL's
 * {@code Image.load()} in a Python process (Debian's libjpeg-turbo, timed there with {@code
 * process_time}). First it checks that the decoders give the same pixels on every image, and says
 * whether each native library holds libjpeg-turbo's SIMD dispatch (the {@code JSIMD_FORCENONE}
 * switch it reads from the environment: a build without SIMD has none). Usage: {@code JpegDecoders [rounds] [record file]
 * [python]}.
 */
public final class JpegDecoders {
  private static final int IMAGES = 300;
  private static final String SIMD_SWITCH = "JSIMD_FORCENONE";
  private static final String PIL = String.join("\n",
      "import io, sys, time",
      "from PIL import Image",
      "data = [open(f, 'rb').read() for f in sys.argv[1:]]",
      "t = time.process_time()",
      "for d in data:",
      "    im = Image.open(io.BytesIO(d)); im.load(); im = im.convert('RGB')",
      "print((time.process_time() - t) * 1000 / len(data))");

  private JpegDecoders() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    Path source = Path.of(args.length > 1 ? args[1] : "../shared/data/recordio/benz_train.rec");
    String python = args.length > 2 ? args[2] : "/usr/bin/python3";
    OpenCv.require();
    lept.setMsgSeverity(lept.L_SEVERITY_NONE);
    List<ImagenetPairs.Photo> photos = ImagenetPairs.photos(source);
    List<byte[]> jpegs = new ArrayList<>();
    long bytes = 0;
    for (int i = 0; i < IMAGES; i++) {
      byte[] j = ImagenetPairs.imagenetLike(photos.get(i % photos.size()).pixels(), i);
      jpegs.add(j);
      bytes += j.length;
    }
    System.out.printf("%d JPEGs of ImagenetPairs, mean %.1f KB%n", IMAGES, bytes / 1024.0 / IMAGES);
    System.out.println("libjpeg-turbo SIMD dispatch in OpenCV's imgcodecs: "
        + holds(Loader.load(opencv_imgcodecs.class), "libopencv_imgcodecs") + "; in Leptonica's: "
        + holds(Loader.load(lept.class), "liblept"));
    System.out.println("images whose pixels differ, OpenCV against Leptonica: " + differing(jpegs));
    Path dir = Files.createTempDirectory("minibatch-jpeg-decoders");
    try {
      List<String> command = new ArrayList<>(List.of(python, "-c", PIL));
      for (int i = 0; i < IMAGES; i++) {
        Path f = dir.resolve(i + ".jpg");
        Files.write(f, jpegs.get(i));
        command.add(f.toString());
      }
      ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
      for (int r = 0; r < rounds + 1; r++) {
        long t0 = cpu.getCurrentThreadCpuTime();
        for (byte[] j : jpegs) {
          try (BytePointer p = new BytePointer(j); Mat m = OpenCv.decode(p, 0, j.length, IMREAD_COLOR)) {
            if (m.empty()) {
              throw new IllegalStateException("OpenCV decoded an empty image");
            }
          }
        }
        long t1 = cpu.getCurrentThreadCpuTime();
        for (byte[] j : jpegs) {
          try (BytePointer p = new BytePointer(j)) {
            PIX pix = lept.pixReadMemJpeg(p, j.length, 0, 1, (IntPointer) null, 0);
            lept.pixDestroy(pix);
          }
        }
        long t2 = cpu.getCurrentThreadCpuTime();
        String pil = pil(command);
        if (r > 0) {
          System.out.printf("round %d: CPU ms per image: OpenCV imdecode %.3f, Leptonica pixReadMemJpeg %.3f, PIL %s%n", r,
              (t1 - t0) / 1e6 / IMAGES, (t2 - t1) / 1e6 / IMAGES, pil);
        }
      }
    } finally {
      ImagenetPairs.deleteTree(dir);
    }
    System.exit(0);
  }

  /**
   * Whether the native library named {@code name…} beside the JNI library at {@code jni} (JavaCPP
   * extracts a preset's libraries into one directory) holds libjpeg-turbo's SIMD switches.
   */
  private static String holds(String jni, String name) throws IOException {
    List<Path> libs;
    try (Stream<Path> files = Files.list(Path.of(jni).getParent())) {
      libs = files.filter(f -> f.getFileName().toString().startsWith(name + ".so")).toList();
    }
    if (libs.isEmpty()) {
      return "unknown (no " + name + ".so beside " + jni + ")";
    }
    byte[] s = SIMD_SWITCH.getBytes(StandardCharsets.US_ASCII);
    for (Path lib : libs) {
      byte[] b = Files.readAllBytes(lib);
      for (int i = 0; i + s.length <= b.length; i++) {
        if (b[i] == s[0] && Arrays.equals(b, i, i + s.length, s, 0, s.length)) {
          return "yes (" + lib.getFileName() + ")";
        }
      }
    }
    return "no (" + libs.get(0).getFileName() + ")";
  }

  /** The images whose BGR pixels from OpenCV differ from Leptonica's packed RGB words. */
  private static int differing(List<byte[]> jpegs) {
    int differ = 0;
    for (byte[] j : jpegs) {
      try (BytePointer p = new BytePointer(j); Mat m = OpenCv.decode(p, 0, j.length, IMREAD_COLOR)) {
        PIX pix = lept.pixReadMemJpeg(p, j.length, 0, 1, (IntPointer) null, 0);
        if (pix == null || pix.isNull()) {
          throw new IllegalStateException("Leptonica decoded no image from a JPEG OpenCV decodes");
        }
        try {
          int w = lept.pixGetWidth(pix);
          int h = lept.pixGetHeight(pix);
          int wpl = lept.pixGetWpl(pix);
          if (w != m.cols() || h != m.rows() || m.channels() != 3 || !m.isContinuous()) {
            differ++;
            continue;
          }
          IntPointer data = lept.pixGetData(pix).capacity((long) wpl * h);
          byte[] bgr = new byte[w * h * 3];
          m.data().capacity(bgr.length).get(bgr);
          boolean same = true;
          for (int y = 0; y < h && same; y++) {
            for (int x = 0; x < w && same; x++) {
              // Leptonica's word is 0xRRGGBBAA; OpenCV's pixel is B, G, R.
              int v = data.get((long) y * wpl + x);
              int o = (y * w + x) * 3;
              same = (bgr[o] & 255) == ((v >>> 8) & 255) && (bgr[o + 1] & 255) == ((v >>> 16) & 255)
                  && (bgr[o + 2] & 255) == (v >>> 24);
            }
          }
          differ += same ? 0 : 1;
        } finally {
          lept.pixDestroy(pix);
        }
      }
    }
    return differ;
  }

  private static String pil(List<String> command) throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      return "not run (" + e.getMessage() + ")";
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    // The last line is the figure; a warning PIL prints comes before it.
    String last = out.lines().reduce((a, b) -> b).orElse("");
    if (p.waitFor() != 0) {
      return "not run (" + last + "; Debian: apt-get install python3-pil)";
    }
    return String.format("%.3f", Double.parseDouble(last));
  }
}
