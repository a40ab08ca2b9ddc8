package dev.minibatch.shards.servers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * An HTTP proxy on 127.0.0.1 in front of a server (the S3 server of {@link LoopbackS3}) that injects
 * faults into chosen requests: a client pointed at it ({@code fs.s3a.endpoint}) sends every request
 * through it, and the test's rule decides per request, from its method, path and how many requests of
 * that method and path came before, whether it passes, gets a status (503 SlowDown, 403 AccessDenied)
 * without reaching the server, is dropped (the connection closed before any answer) or is cut (the
 * server's answer relayed only up to a number of bytes, then the connection closed).
 *
 * <p>One request per connection: the request goes to the server with {@code Connection: close}, so the
 * server's answer says so too and the client opens a new connection for its next request. Requests with
 * a body (uploads) are relayed whole; point writers at the server itself.
 */
public final class FaultyProxy implements AutoCloseable {
  /** What happens to one request. */
  public sealed interface Fault permits Pass, Status, Drop, Cut {}

  /** The request reaches the server and its answer the client. */
  public record Pass() implements Fault {}

  /** The client gets this status and S3 error code, the server never sees the request. */
  public record Status(int code, String s3Code) implements Fault {}

  /** The connection is closed before any answer. */
  public record Drop() implements Fault {}

  /** The server's answer is relayed up to {@code bytes} bytes (headers included), then the connection closed. */
  public record Cut(int bytes) implements Fault {}

  /** Every request passes. */
  public static final Fault PASS = new Pass();
  /** A 503 SlowDown, S3's answer when it throttles. */
  public static final Fault SLOW_DOWN = new Status(503, "SlowDown");
  /** A 403 AccessDenied. */
  public static final Fault DENIED = new Status(403, "AccessDenied");
  /** The connection dropped. */
  public static final Fault DROP = new Drop();

  /** One request seen: its method, path (without the query) and what was done with it. */
  public record Seen(String method, String path, Fault fault) {}

  private final ServerSocket socket;
  private final int upstream;
  private final BiFunction<String, Integer, Fault> rule;
  private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  /**
   * A proxy to the server on 127.0.0.1:{@code upstream}, the rule given {@code "METHOD /path"} and the
   * number of earlier requests with that method and path (0 for the first).
   */
  public FaultyProxy(int upstream, BiFunction<String, Integer, Fault> rule) throws IOException {
    this.upstream = upstream;
    this.rule = rule;
    this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "faulty-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The port clients connect to. */
  public int port() {
    return socket.getLocalPort();
  }

  /** The requests seen so far, in order of arrival. */
  public List<Seen> seen() {
    return List.copyOf(seen);
  }

  /** The requests seen with this method whose path ends with {@code suffix}. */
  public List<Seen> seen(String method, String suffix) {
    return seen.stream().filter(s -> s.method().equals(method) && s.path().endsWith(suffix)).toList();
  }

  private void accept() {
    while (!socket.isClosed()) {
      Socket client;
      try {
        client = socket.accept();
      } catch (IOException e) {
        return; // closed
      }
      open.add(client);
      Thread t = new Thread(() -> serve(client), "faulty-proxy-" + client.getPort());
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  private void serve(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      byte[] head = readHead(in);
      if (head == null) {
        return;
      }
      String text = new String(head, StandardCharsets.ISO_8859_1);
      String[] lines = text.split("\r\n");
      String[] request = lines[0].split(" ");
      String method = request[0];
      String path = request[1].split("\\?", 2)[0];
      long bodyLength = 0;
      StringBuilder forwarded = new StringBuilder(lines[0]).append("\r\n");
      for (int i = 1; i < lines.length; i++) {
        String lower = lines[i].toLowerCase(Locale.ROOT);
        if (lower.startsWith("content-length:")) {
          bodyLength = Long.parseLong(lines[i].substring(15).trim());
        }
        if (!lower.startsWith("connection:") && !lines[i].isEmpty()) {
          forwarded.append(lines[i]).append("\r\n");
        }
      }
      forwarded.append("Connection: close\r\n\r\n");
      String key = method + " " + path;
      int nth = counts.computeIfAbsent(key, k -> new AtomicInteger()).getAndIncrement();
      Fault fault = rule.apply(key, nth);
      seen.add(new Seen(method, path, fault));
      byte[] body = in.readNBytes((int) bodyLength);
      OutputStream out = client.getOutputStream();
      if (fault instanceof Status s) {
        byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + s.s3Code() + "</Code><Message>injected by"
            + " the test</Message><RequestId>faulty-proxy</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
        String reply = "HTTP/1.1 " + s.code() + " " + s.s3Code() + "\r\nContent-Type: application/xml\r\nContent-Length: "
            + xml.length + "\r\nConnection: close\r\n\r\n";
        out.write(reply.getBytes(StandardCharsets.ISO_8859_1));
        if (!method.equals("HEAD")) {
          out.write(xml);
        }
        out.flush();
      } else if (fault instanceof Cut c) {
        relay(forwarded, body, out, c.bytes());
      } else if (fault instanceof Pass) {
        relay(forwarded, body, out, Long.MAX_VALUE);
      }
      // Drop: the connection is closed below, with no answer.
    } catch (IOException e) {
      // the client or the server went away: nothing to answer
    } finally {
      open.remove(client);
    }
  }

  private void relay(StringBuilder head, byte[] body, OutputStream out, long limit) throws IOException {
    try (Socket server = new Socket(InetAddress.getLoopbackAddress(), upstream)) {
      open.add(server);
      try {
        OutputStream up = server.getOutputStream();
        up.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        up.write(body);
        up.flush();
        InputStream down = server.getInputStream();
        byte[] buffer = new byte[65_536];
        long sent = 0;
        int n;
        while (sent < limit && (n = down.read(buffer)) > 0) {
          int k = (int) Math.min(n, limit - sent);
          out.write(buffer, 0, k);
          sent += k;
        }
        out.flush();
      } finally {
        open.remove(server);
      }
    }
  }

  /** The request's head up to its blank line, or null if the client closed first. */
  private static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    int b;
    while ((b = in.read()) >= 0) {
      head.write(b);
      matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
          ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4) {
        return head.toByteArray();
      }
    }
    return null;
  }

  /** Stops accepting, closes every connection and waits for the proxy's threads to end. */
  @Override
  public void close() throws IOException {
    socket.close();
    for (Socket s : new ArrayList<>(open)) {
      s.close();
    }
    try {
      acceptor.join(5_000);
      for (Thread t : threads) {
        t.join(5_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
