package dev.minibatch.text;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.List;
import java.util.Locale;

/**
 * The bundled tokenisers: OpenAI's byte-pair encodings, implemented in pure Java by JTokkit, with
 * their vocabularies inside its jar (nothing is downloaded). Each is loaded once, on first use (about
 * a second for {@code o200k_base}), and shared.
 */
public final class Tokenizers {
  private Tokenizers() {}

  /** {@code cl100k_base}, the encoding of GPT-3.5 and GPT-4: 100 277 ids. */
  public static Tokenizer cl100k() {
    return Cl100k.INSTANCE;
  }

  /** {@code o200k_base}, the encoding of GPT-4o: 200 019 ids. */
  public static Tokenizer o200k() {
    return O200k.INSTANCE;
  }

  /**
   * The bundled tokeniser called {@code name}: {@code cl100k_base} or {@code o200k_base} (also
   * {@code cl100k}, {@code o200k}; case is ignored).
   *
   * @throws IllegalArgumentException naming the tokenisers there are
   */
  public static Tokenizer named(String name) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "cl100k_base":
      case "cl100k":
        return cl100k();
      case "o200k_base":
      case "o200k":
        return o200k();
      default:
        throw new IllegalArgumentException("no bundled tokeniser '" + name + "': the bundled ones are " + NAMES);
    }
  }

  /** The names {@link #named} takes. */
  static final List<String> NAMES = List.of("cl100k_base", "o200k_base");

  /** The lazy registry reads a vocabulary only when its encoding is first asked for. */
  private static final class Registry {
    static final EncodingRegistry INSTANCE = Encodings.newLazyEncodingRegistry();
  }

  private static final class Cl100k {
    static final Tokenizer INSTANCE =
        new BytePairTokenizer(Registry.INSTANCE.getEncoding(EncodingType.CL100K_BASE), 100_277);
  }

  private static final class O200k {
    static final Tokenizer INSTANCE =
        new BytePairTokenizer(Registry.INSTANCE.getEncoding(EncodingType.O200K_BASE), 200_019);
  }
}
