package dev.minibatch.runtime.io.image;

import java.awt.image.BufferedImage;
import java.util.Locale;

/**
 * A 3x5 pixel bitmap font for {@link ImageGrid}'s captions: digits, letters (drawn as capitals) and
 * the few signs a label or a sample index needs; any other character is drawn as {@code ?}. Built in
 * so that captions do not depend on the fonts a headless machine has installed (Java2D text needs
 * fontconfig and at least one font, which training servers often lack).
 */
final class TinyFont {
  /** Glyph rows top to bottom, each an octal digit whose bits 4, 2, 1 are the left, middle, right pixel. */
  private static final String CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ#-.,:_/[]()+=?| ";
  private static final String[] GLYPHS = {
      "75557", "26227", "71747", "71717", "55711", "74717", "74757", "71111", "75757", "75717",
      "25755", "65656", "74447", "65556", "74647", "74644", "34553", "55755", "72227", "11152", "55655", "44447",
      "57755", "65555", "25552", "65644", "25563", "65655", "34216", "72222", "55557", "55552", "55775", "55255",
      "55222", "71247",
      "27272", "00700", "00002", "00024", "02020", "00007", "11244", "64446", "31113", "24442", "21112", "02720",
      "07070", "71202", "22222", "00000"};
  /** Pixels from one character's left edge to the next's, at scale 1. */
  static final int ADVANCE = 4;
  /** Glyph height at scale 1. */
  static final int HEIGHT = 5;

  private TinyFont() {}

  /**
   * Draws {@code text} with its top-left corner at ({@code x}, {@code y}), each font pixel a {@code
   * scale x scale} square of {@code rgb}, clipped to the columns before {@code right}.
   */
  static void draw(BufferedImage img, String text, int x, int y, int scale, int rgb, int right) {
    String upper = text.toUpperCase(Locale.ROOT);
    for (int i = 0; i < upper.length(); i++) {
      int k = CHARS.indexOf(upper.charAt(i));
      String glyph = GLYPHS[k < 0 ? CHARS.indexOf('?') : k];
      int left = x + i * ADVANCE * scale;
      for (int row = 0; row < HEIGHT; row++) {
        int bits = glyph.charAt(row) - '0';
        for (int col = 0; col < 3; col++) {
          if ((bits & (4 >> col)) != 0) {
            fill(img, left + col * scale, y + row * scale, scale, rgb, right);
          }
        }
      }
    }
  }

  private static void fill(BufferedImage img, int x0, int y0, int scale, int rgb, int right) {
    for (int y = y0; y < y0 + scale && y < img.getHeight(); y++) {
      for (int x = x0; x < x0 + scale && x < Math.min(right, img.getWidth()); x++) {
        img.setRGB(x, y, rgb);
      }
    }
  }
}
