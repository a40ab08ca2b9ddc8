package dev.minibatch.runtime.io.image;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The torchvision side of {@link ImagenetPairs}: {@code imagenet_torchvision.py} (a resource beside
 * this class) run by Debian's Python as one subprocess for the whole run, whose DataLoaders (0 and 2
 * workers) each run one epoch per {@link #epoch} call, so that their epochs take turns with ours in
 * the same rounds. Start-up (imports, the folder's listing, the loaders) happens once, before the
 * rounds, as our providers are built once.
 */
final class TorchvisionPeer implements AutoCloseable {
  static final String INSTALL =
      "apt-get install -y --no-install-recommends python3-torchvision python3-torch python3-pil";

  private final Process process;
  private final BufferedReader replies;
  private final Writer commands;
  private final Path errors;
  private final String versions;

  private TorchvisionPeer(Process process, Path errors, String versions, BufferedReader replies) {
    this.process = process;
    this.errors = errors;
    this.versions = versions;
    this.replies = replies;
    this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /**
   * Starts the peer over {@code folder} ({@code <label>/<n>.jpg}) with {@code python}, or returns
   * null after saying on standard output why not and how to install it.
   */
  static @Nullable TorchvisionPeer start(String python, Path folder, long seed, Path work) throws IOException {
    Path script = work.resolve("imagenet_torchvision.py");
    try (InputStream in = TorchvisionPeer.class.getResourceAsStream("imagenet_torchvision.py")) {
      if (in == null) {
        throw new IllegalStateException("imagenet_torchvision.py is not on the class path beside "
            + TorchvisionPeer.class.getName() + " (build the benchmarks module)");
      }
      Files.copy(in, script);
    }
    Path errors = work.resolve("imagenet_torchvision.err");
    Process p;
    try {
      p = new ProcessBuilder(python, script.toString(), folder.toString(), Long.toString(seed))
          .redirectError(errors.toFile()).start();
    } catch (IOException e) {
      System.out.println("torchvision peer skipped: cannot run " + python + " (" + e.getMessage()
          + "); install Debian's with: " + INSTALL);
      return null;
    }
    BufferedReader replies = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String first = replies.readLine();
    if (first == null || !first.startsWith("ready ")) {
      destroy(p);
      String said = stderr(errors);
      System.out.println("torchvision peer skipped: " + python + " said " + said
          + (said.contains(INSTALL) ? "" : "; install with: " + INSTALL) + " (Debian's is /usr/bin/python3, -Dpython=)");
      return null;
    }
    return new TorchvisionPeer(p, errors, first.substring("ready ".length()), replies);
  }

  /** What the peer runs on: image count and torch, torchvision, Pillow versions, torch threads. */
  String versions() {
    return versions;
  }

  /**
   * One epoch of the loader with {@code workers} workers; returns the CPU time (ns) that the peer's
   * process and workers spent on it, checking that it delivered {@code images} images.
   */
  long epoch(int workers, int images) throws IOException {
    commands.write("epoch " + workers + "\n");
    commands.flush();
    String reply = replies.readLine();
    String expected = "epoch " + workers + " images=" + images + " cpu_ns=";
    if (reply == null || !reply.startsWith(expected)) {
      throw new IllegalStateException("torchvision peer, epoch with " + workers + " workers: expected a line '"
          + expected + "...', got " + (reply == null ? "the end of its output" : "'" + reply + "'")
          + "; its stderr: " + stderr(errors));
    }
    String rest = reply.substring(expected.length());
    int space = rest.indexOf(' ');
    return Long.parseLong(space < 0 ? rest : rest.substring(0, space));
  }

  @Override
  public void close() throws IOException {
    try {
      commands.write("quit\n");
      commands.close();
    } catch (IOException e) {
      // already gone: destroy below reaps it
    }
    destroy(process);
  }

  private static void destroy(Process p) {
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static String stderr(Path errors) {
    try {
      String s = Files.readString(errors).strip();
      return s.isEmpty() ? "nothing on stderr" : "'" + s + "'";
    } catch (IOException e) {
      return "(its stderr unreadable: " + e.getMessage() + ")";
    }
  }
}
