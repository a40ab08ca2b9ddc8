package dev.minibatch.runtime.io.image;

import static dev.minibatch.runtime.io.image.JpegSamples.cut;
import static dev.minibatch.runtime.io.image.JpegSamples.insert;
import static dev.minibatch.runtime.io.image.JpegSamples.libjpeg;
import static dev.minibatch.runtime.io.image.JpegSamples.scanStart;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_OPTIMIZE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_RST_INTERVAL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.minibatch.runtime.io.image.JpegCheck.Fault;
import dev.minibatch.runtime.io.image.JpegSamples.Libjpeg;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;

/**
 * {@link JpegCheck} against libjpeg itself, on a seeded set of damaged sequential JPEGs: flipped
 * bits, zeroed bytes, bytes overwritten, bytes inserted, cuts, all in the first scan's
 * entropy-coded data (restart markers included).
 * libjpeg's verdict comes through {@code javax.imageio} ({@link JpegSamples#libjpeg}).
 *
 * <p>The relation proven, for every damaged image:
 *
 * <ul>
 *   <li>whenever libjpeg warns or fails, the check rejects the image;
 *   <li>whenever the check rejects an image libjpeg decodes without a word, it is for one of two
 *       reasons, each shown by libjpeg's own output: bytes left before a marker (libjpeg skips
 *       them, and loses its warning when its bit buffer has already read up to the marker: with the
 *       bytes cut out, it decodes the very same pixels), or a symbol no encoder writes (libjpeg
 *       decodes it into a wrong block: its pixels differ from the undamaged image's).
 * </ul>
 *
 * <p>What neither finds: damage that leaves a valid stream (most flips of a magnitude bit). The
 * counts are in the assertion messages.
 */
class JpegCheckLibjpegTest {
  @Test
  void theCheckRejectsWhateverLibjpegWarnsAboutAndMoreOnlyWithCause() {
    List<byte[]> images = new ArrayList<>();
    long seed = 100;
    for (int channels : new int[] {1, 3}) {
      for (int quality : new int[] {30, 75, 95}) {
        for (int restart : new int[] {0, 2}) {
          for (int optimize : new int[] {0, 1}) {
            try (Mat m = JpegSamples.picture(40 + (int) (seed % 7), 56 - (int) (seed % 5), channels, seed++)) {
              images.add(JpegSamples.opencv(m, IMWRITE_JPEG_QUALITY, quality, IMWRITE_JPEG_RST_INTERVAL, restart,
                  IMWRITE_JPEG_OPTIMIZE, optimize));
            }
          }
        }
      }
    }
    images.add(JpegSamples.jdk(37, 51, seed++, 1, 1, 0));
    images.add(JpegSamples.jdk(37, 51, seed++, 2, 1, 3));
    images.add(JpegSamples.threeScans(35, 49, seed++, 85, 0));
    images.add(JpegSamples.threeScans(35, 49, seed, 85, 4));

    Random r = new Random(24);
    Map<Fault, Integer> warned = new EnumMap<>(Fault.class);
    Map<Fault, Integer> beyond = new EnumMap<>(Fault.class);
    int damaged = 0;
    int silentBoth = 0;
    JpegCheck check = new JpegCheck();
    for (byte[] jpeg : images) {
      byte[] clean = libjpeg(jpeg).pixels();
      assertNotNull(clean);
      int from = scanStart(jpeg);
      int to = endOfFirstScan(jpeg, from);
      for (int t = 0; t < 16; t++) {
        byte[] x = damage(jpeg, from, to, r);
        damaged++;
        String problem = check.check(x, 0, x.length);
        Fault fault = check.fault();
        Libjpeg verdict = libjpeg(x);
        String which = "damage " + t + " of a " + jpeg.length + "-byte JPEG: check says " + problem + "; libjpeg says "
            + verdict.warnings();
        if (!verdict.silent()) {
          assertNotNull(problem, which);
          warned.merge(fault, 1, Integer::sum);
        } else if (problem != null) {
          beyond.merge(fault, 1, Integer::sum);
          switch (fault) {
            case EXTRANEOUS -> assertArrayEquals(verdict.pixels(), libjpeg(cut(x, check.faultOffset(),
                check.faultEnd())).pixels(), "libjpeg skipped the bytes left over: " + which);
            case IMPOSSIBLE -> assertFalse(Arrays.equals(clean, verdict.pixels()), "the damage shows: " + which);
            default -> fail("libjpeg is silent where it warns of this: " + which);
          }
        } else {
          silentBoth++;
        }
      }
    }
    String counts = damaged + " damaged JPEGs; libjpeg warned of " + warned + "; the check alone rejected " + beyond
        + "; neither found " + silentBoth;
    // Each kind of problem libjpeg warns of came up, so that the relation was tried on each.
    for (Fault f : new Fault[] {Fault.PREMATURE_END, Fault.EXTRANEOUS, Fault.BAD_CODE, Fault.RESTART}) {
      assertTrue(warned.getOrDefault(f, 0) >= 3, counts);
    }
    assertTrue(beyond.getOrDefault(Fault.EXTRANEOUS, 0) >= 1 && beyond.getOrDefault(Fault.IMPOSSIBLE, 0) >= 1,
        counts);
  }

  /** Where the first scan's data, from {@code p}, ends: its first marker other than a restart marker. */
  private static int endOfFirstScan(byte[] b, int p) {
    for (int i = p; ; i++) {
      int next = b[i + 1] & 0xFF;
      if (b[i] == (byte) 0xFF && next != 0 && next != 0xFF && (next < 0xD0 || next > 0xD7)) {
        return i;
      }
    }
  }

  /** One kind of damage to the entropy-coded data at {@code [from, to)}, chosen by {@code r}. */
  private static byte[] damage(byte[] jpeg, int from, int to, Random r) {
    byte[] x = jpeg.clone();
    int at = from + r.nextInt(to - from);
    int kind = r.nextInt(6);
    if (kind == 5) {
      // A restart marker's number changed, when the scan has restart markers.
      for (int i = at; i + 1 < to; i++) {
        if (x[i] == (byte) 0xFF && (x[i + 1] & 0xF8) == 0xD0) {
          x[i + 1] = (byte) (0xD0 | ((x[i + 1] + 1 + r.nextInt(7)) & 7));
          return x;
        }
      }
      kind = 0;
    }
    switch (kind) {
      case 0 -> x[at] ^= (byte) (1 << r.nextInt(8));
      case 1 -> Arrays.fill(x, at, Math.min(to, at + 1 + r.nextInt(8)), (byte) 0);
      case 2 -> {
        for (int k = 0; k < 3; k++) {
          x[Math.min(to - 1, at + r.nextInt(40))] ^= (byte) (1 + r.nextInt(255));
        }
      }
      case 3 -> x = insert(x, at, (byte) (1 + r.nextInt(254)), (byte) (1 + r.nextInt(254)));
      default -> x = cut(x, at, x.length);
    }
    return x;
  }
}
