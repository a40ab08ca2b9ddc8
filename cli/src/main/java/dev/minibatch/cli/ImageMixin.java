package dev.minibatch.cli;

import dev.minibatch.runtime.io.image.ImageOptions;
import dev.minibatch.runtime.io.image.ImageRecordProvider;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The image options of {@code show}: the output shape, ImageRecordProvider's augmentation and
 * normalisation, as {@link ImageOptions} for the image formats (RecordIO, image folders). Each flag
 * is one builder call, named as docs/images.md names the parameter.
 */
final class ImageMixin {
  @Option(names = "--shape", paramLabel = "C,H,W", split = ",",
      description = "The output shape: channels (1, 3 or 4), height, width; default: the first image's.")
  int @Nullable [] shape;

  @Option(names = "--resize", paramLabel = "N", description = "Resize the shorter side to N before the crop.")
  @Nullable Integer resize;

  @Option(names = "--pad", paramLabel = "N", description = "Pad every side by N pixels before the crop.")
  @Nullable Integer pad;

  @Option(names = "--rand-crop", description = "Crop at a random place (else the centre).")
  boolean randCrop;

  @Option(names = "--random-resized-crop", description = "torchvision's RandomResizedCrop in place of the crop.")
  boolean randomResizedCrop;

  @Option(names = "--rand-mirror", description = "Mirror each image with probability 1/2.")
  boolean randMirror;

  @Option(names = "--max-rotate-angle", paramLabel = "DEG", description = "Rotate by a random angle in [-DEG, DEG].")
  @Nullable Float maxRotateAngle;

  @Option(names = "--brightness", paramLabel = "V", description = "Colour jitter: brightness factor in [1-V, 1+V].")
  @Nullable Float brightness;

  @Option(names = "--contrast", paramLabel = "V", description = "Colour jitter: contrast factor in [1-V, 1+V].")
  @Nullable Float contrast;

  @Option(names = "--saturation", paramLabel = "V", description = "Colour jitter: saturation factor in [1-V, 1+V].")
  @Nullable Float saturation;

  @Option(names = "--hue", paramLabel = "V", description = "Colour jitter: hue turn in [-V, V] of the circle.")
  @Nullable Float hue;

  @Option(names = "--mean", paramLabel = "R,G,B", split = ",",
      description = "Normalisation: the means subtracted (one value, or one per channel); undone for the picture.")
  float @Nullable [] mean;

  @Option(names = "--std", paramLabel = "R,G,B", split = ",",
      description = "Normalisation: the divisors (one value, or one per channel); undone for the picture.")
  float @Nullable [] std;

  @Option(names = "--scale", paramLabel = "S", description = "Normalisation: the factor after the mean, e.g. "
      + "0.00392 (1/255); undone for the picture.")
  @Nullable Float scale;

  /** The flags given that only the image formats read, in the order above. */
  List<String> given() {
    List<String> all = new ArrayList<>();
    add(all, "--shape", shape != null);
    add(all, "--resize", resize != null);
    add(all, "--pad", pad != null);
    add(all, "--rand-crop", randCrop);
    add(all, "--random-resized-crop", randomResizedCrop);
    add(all, "--rand-mirror", randMirror);
    add(all, "--max-rotate-angle", maxRotateAngle != null);
    add(all, "--brightness", brightness != null);
    add(all, "--contrast", contrast != null);
    add(all, "--saturation", saturation != null);
    add(all, "--hue", hue != null);
    add(all, "--mean", mean != null);
    add(all, "--std", std != null);
    add(all, "--scale", scale != null);
    return all;
  }

  private static void add(List<String> all, String flag, boolean given) {
    if (given) {
      all.add(flag);
    }
  }

  /**
   * The options with the random augmentation ({@code augmented}) or without it: the shape, {@code
   * --resize} and the normalisation only, what the originals of {@code show --compare} are read with.
   */
  ImageOptions options(boolean augmented) {
    return new ImageOptions(b -> {
      int[] s = shape;
      if (s != null) {
        if (s.length != 3) {
          throw new IllegalArgumentException("--shape takes C,H,W (3 numbers), got " + s.length);
        }
        b.dataShape(s[0], s[1], s[2]);
      }
      b.augment(a -> {
        if (resize != null) {
          a.resize(resize);
        }
        if (augmented) {
          random(a);
        }
      });
      b.normalize(n -> {
        if (mean != null) {
          float[] m = perChannel("--mean", mean, 0);
          n.meanR(m[0]).meanG(m[1]).meanB(m[2]).meanA(m[3]);
        }
        if (std != null) {
          float[] d = perChannel("--std", std, 1);
          n.stdR(d[0]).stdG(d[1]).stdB(d[2]).stdA(d[3]);
        }
        if (scale != null) {
          n.scale(scale);
        }
      });
    });
  }

  private void random(ImageRecordProvider.Augment a) {
    if (pad != null) {
      a.pad(pad);
    }
    a.randCrop(randCrop).randomResizedCrop(randomResizedCrop).randMirror(randMirror);
    if (maxRotateAngle != null) {
      a.maxRotateAngle(maxRotateAngle);
    }
    if (brightness != null) {
      a.brightness(brightness);
    }
    if (contrast != null) {
      a.contrast(contrast);
    }
    if (saturation != null) {
      a.saturation(saturation);
    }
    if (hue != null) {
      a.hue(hue);
    }
  }

  /** One value for every channel, or up to 4 (R, G, B, A) with {@code fallback} for the others. */
  private static float[] perChannel(String flag, float[] given, float fallback) {
    if (given.length == 0 || given.length > 4) {
      throw new IllegalArgumentException(flag + " takes 1 to 4 values (one for every channel, or R,G,B[,A]), got "
          + given.length);
    }
    float[] all = new float[4];
    for (int c = 0; c < 4; c++) {
      all[c] = given.length == 1 ? given[0] : c < given.length ? given[c] : fallback;
    }
    return all;
  }
}
