package dev.minibatch.runtime.io.image;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_UNCHANGED;

import dev.minibatch.runtime.io.FileFormatException;
import java.nio.ByteBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.jspecify.annotations.Nullable;

/**
 * Decodes one encoded image to learn what it is, for tools that inspect or validate image files
 * (the command line's {@code inspect} and {@code validate}): its format, size and channels, or
 * what is wrong with it: OpenCV cannot decode it, or it is a corrupt JPEG ({@link JpegCheck}), which
 * is never handed to OpenCV, so that libjpeg's own warning line does not reach stderr. Not for the
 * hot path (it allocates per call).
 *
 * @param format the format named by the image's first bytes ("JPEG", "PNG", …, or "unknown")
 * @param height rows (of a corrupt JPEG, its frame header's), or 0 when it cannot be decoded or the
 *     corrupt JPEG has no frame header
 * @param width columns, or 0
 * @param channels channels as stored (1 gray, 3 colour, 4 with alpha), or 0
 * @param problem why it cannot be decoded or is corrupt, or null
 */
record ImageProbe(String format, int height, int width, int channels, @Nullable String problem) {
  /** One checker per thread: the command line's tools probe images one after another. */
  private static final ThreadLocal<JpegCheck> JPEG = ThreadLocal.withInitial(JpegCheck::new);

  /**
   * Probes the bytes between {@code encoded}'s position and limit.
   *
   * @throws IllegalStateException if OpenCV's natives are missing
   */
  public static ImageProbe of(ByteBuffer encoded) {
    OpenCv.require();
    ByteBuffer b = encoded.slice();
    int n = b.remaining();
    String format = format(b);
    if (n == 0) {
      return new ImageProbe(format, 0, 0, 0, "no image bytes");
    }
    JpegCheck jpeg = JPEG.get();
    String corrupt = jpeg.check(b, 0, n);
    if (corrupt != null) {
      // Not handed to OpenCV: libjpeg would print its own "Corrupt JPEG data: ..." warning on the
      // process's stderr (OpenCV keeps libjpeg's default message output, a native write no caller
      // can catch or redirect per thread), ahead of the problem named here. The size is the frame
      // header's, and the channels OpenCV's JPEG decoder gives for it unchanged (1 for one
      // component, else 3, as it converts CMYK); without a frame header the size is unknown.
      return jpeg.hasFrame()
          ? new ImageProbe(format, jpeg.frameHeight(), jpeg.frameWidth(), jpeg.frameComponents() == 1 ? 1 : 3, corrupt)
          : new ImageProbe(format, 0, 0, 0, corrupt);
    }
    ByteBuffer direct = b;
    if (!b.isDirect()) {
      direct = ByteBuffer.allocateDirect(n).put(b.duplicate());
      direct.flip();
    }
    try (BytePointer p = new BytePointer(direct); Mat image = OpenCv.decode(p, 0, n, IMREAD_UNCHANGED)) {
      if (image.empty()) {
        return new ImageProbe(format, 0, 0, 0, "OpenCV cannot decode the " + n
            + " image bytes; expected a JPEG, PNG or another format OpenCV reads");
      }
      return new ImageProbe(format, image.rows(), image.cols(), image.channels(), null);
    }
  }

  /** The format its first bytes name. */
  static String format(ByteBuffer b) {
    int n = b.remaining();
    int p = b.position();
    if (n >= 3 && (b.get(p) & 0xff) == 0xFF && (b.get(p + 1) & 0xff) == 0xD8 && (b.get(p + 2) & 0xff) == 0xFF) {
      return "JPEG";
    }
    if (n >= 4 && (b.get(p) & 0xff) == 0x89 && b.get(p + 1) == 'P' && b.get(p + 2) == 'N' && b.get(p + 3) == 'G') {
      return "PNG";
    }
    if (n >= 2 && b.get(p) == 'B' && b.get(p + 1) == 'M') {
      return "BMP";
    }
    if (n >= 12 && b.get(p) == 'R' && b.get(p + 1) == 'I' && b.get(p + 8) == 'W' && b.get(p + 9) == 'E') {
      return "WebP";
    }
    if (n >= 4 && ((b.get(p) == 'I' && b.get(p + 1) == 'I') || (b.get(p) == 'M' && b.get(p + 1) == 'M'))) {
      return "TIFF";
    }
    if (n >= 2 && b.get(p) == 'P' && b.get(p + 1) >= '1' && b.get(p + 1) <= '6') {
      return "PNM";
    }
    return "unknown";
  }

  /**
   * "PNG 28x28x1", "JPEG 64x48x3 (corrupt)" (a corrupt JPEG, with its frame header's size), "JPEG
   * (corrupt)" (one whose frame header is missing or broken) or "PNG (undecodable)".
   */
  @Override
  public String toString() {
    String size = format + " " + width + "x" + height + "x" + channels;
    return problem == null ? size : height > 0 ? size + " (corrupt)"
        : format + (problem.startsWith("corrupt JPEG") ? " (corrupt)" : " (undecodable)");
  }

  /**
   * An {@link ImageRecordProvider} builder reading images at this one's size: its channels (gray as
   * 1, alpha kept as 4, anything else as 3), height and width.
   *
   * @throws FileFormatException naming {@code file} and, before the problem, {@code which} (e.g.
   *     {@code "record 0: "}) if this image does not decode or is corrupt
   */
  ImageRecordProvider.Builder providerAtThisSize(String file, String which) {
    if (problem != null) {
      throw new FileFormatException(file, which + problem);
    }
    int c = channels == 1 ? 1 : channels == 4 ? 4 : 3;
    return ImageRecordProvider.builder().dataShape(c, height, width);
  }
}
