package dev.minibatch.shards.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP sockets this JVM holds, read from Linux's {@code /proc}: the kernel's socket tables
 * ({@code /proc/self/net/tcp}, {@code tcp6}) joined with this process's open descriptors ({@code
 * /proc/self/fd}), so that a socket counts only while this process holds it (a connection in
 * TIME_WAIT belongs to no process). Lets a test see every port a server opened and that it closed
 * them all, not only the ports the server reports.
 */
public final class OpenSockets {
  /** One socket: its local address and port, remote address and port, and TCP state. */
  public record Socket(String localAddress, int localPort, String remoteAddress, int remotePort, String state) {
    /** Whether it waits for connections. */
    public boolean listening() {
      return state.equals("LISTEN");
    }

    @Override
    public String toString() {
      return state + " " + localAddress + ":" + localPort
          + (listening() ? "" : " -> " + remoteAddress + ":" + remotePort);
    }
  }

  private OpenSockets() {}

  /** Whether this system has the tables ({@code /proc} of Linux). */
  public static boolean available() {
    return Files.isReadable(Path.of("/proc/self/net/tcp")) && Files.isDirectory(Path.of("/proc/self/fd"));
  }

  /** The TCP sockets this process holds now, in any state. */
  public static Set<Socket> ofThisProcess() throws IOException {
    Set<String> inodes = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring("socket:[".length(), target.length() - 1));
          }
        } catch (IOException closedMeanwhile) {
          // The descriptor was closed between listing and reading it (or was the listing's own).
        }
      }
    }
    Set<Socket> sockets = new HashSet<>();
    for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
      Path path = Path.of(table);
      if (!Files.isReadable(path)) {
        continue;
      }
      List<String> lines = Files.readAllLines(path);
      for (String line : lines.subList(1, lines.size())) {
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        String[] f = line.trim().split("\\s+");
        if (f.length > 9 && inodes.contains(f[9])) {
          sockets.add(new Socket(address(f[1]), port(f[1]), address(f[2]), port(f[2]), state(f[3])));
        }
      }
    }
    return sockets;
  }

  private static int port(String hexAddressAndPort) {
    return Integer.parseInt(hexAddressAndPort.substring(hexAddressAndPort.indexOf(':') + 1), 16);
  }

  /**
   * The kernel prints an address as 32-bit words in the machine's byte order (little-endian on
   * the x86 and ARM machines this runs on): one word for IPv4, four for IPv6.
   */
  private static String address(String hexAddressAndPort) {
    String hex = hexAddressAndPort.substring(0, hexAddressAndPort.indexOf(':'));
    byte[] bytes = new byte[hex.length() / 2];
    for (int word = 0; word < bytes.length / 4; word++) {
      for (int b = 0; b < 4; b++) {
        int at = (word * 4 + 3 - b) * 2;
        bytes[word * 4 + b] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
      }
    }
    if (bytes.length == 4) {
      return (bytes[0] & 0xff) + "." + (bytes[1] & 0xff) + "." + (bytes[2] & 0xff) + "." + (bytes[3] & 0xff);
    }
    boolean v4Mapped = true;
    for (int i = 0; i < 10; i++) {
      v4Mapped &= bytes[i] == 0;
    }
    v4Mapped &= bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff;
    if (v4Mapped) {
      return (bytes[12] & 0xff) + "." + (bytes[13] & 0xff) + "." + (bytes[14] & 0xff) + "." + (bytes[15] & 0xff);
    }
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < 16; i += 2) {
      s.append(i == 0 ? "" : ":").append(Integer.toHexString(((bytes[i] & 0xff) << 8) | (bytes[i + 1] & 0xff)));
    }
    return s.append(']').toString();
  }

  private static String state(String hex) {
    // include/net/tcp_states.h
    return switch (Integer.parseInt(hex, 16)) {
      case 1 -> "ESTABLISHED";
      case 2 -> "SYN_SENT";
      case 3 -> "SYN_RECV";
      case 4 -> "FIN_WAIT1";
      case 5 -> "FIN_WAIT2";
      case 6 -> "TIME_WAIT";
      case 7 -> "CLOSE";
      case 8 -> "CLOSE_WAIT";
      case 9 -> "LAST_ACK";
      case 10 -> "LISTEN";
      case 11 -> "CLOSING";
      default -> "STATE_" + hex.toUpperCase(Locale.ROOT);
    };
  }
}
