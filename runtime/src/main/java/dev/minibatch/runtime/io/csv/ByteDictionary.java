package dev.minibatch.runtime.io.csv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Class names to indices, looked up by byte slice so that a label column costs no String per row:
 * a String is made only the first time a name is seen. Open addressing, not thread-safe.
 */
final class ByteDictionary {
  private byte[][] keys = new byte[16][];
  private int[] values = new int[16];
  private final List<String> names = new ArrayList<>();

  /** A dictionary holding {@code names} at their positions. */
  static ByteDictionary of(List<String> names) {
    ByteDictionary d = new ByteDictionary();
    for (String n : names) {
      byte[] k = n.getBytes(StandardCharsets.UTF_8);
      d.add(k, 0, k.length);
    }
    return d;
  }

  /** The index of the name in {@code b[from, to)}, or -1. */
  int get(byte[] b, int from, int to) {
    int mask = keys.length - 1;
    for (int i = hash(b, from, to) & mask; ; i = (i + 1) & mask) {
      byte[] k = keys[i];
      if (k == null) {
        return -1;
      }
      if (Arrays.equals(k, 0, k.length, b, from, to)) {
        return values[i];
      }
    }
  }

  /** Adds the name in {@code b[from, to)} (which must be new) and returns its index. */
  int add(byte[] b, int from, int to) {
    if ((names.size() + 1) * 2 > keys.length) {
      grow();
    }
    int index = names.size();
    byte[] key = Arrays.copyOfRange(b, from, to);
    put(key, index);
    names.add(new String(key, StandardCharsets.UTF_8));
    return index;
  }

  /** The names by index. */
  List<String> names() {
    return names;
  }

  private void put(byte[] key, int value) {
    int mask = keys.length - 1;
    int i = hash(key, 0, key.length) & mask;
    while (keys[i] != null) {
      i = (i + 1) & mask;
    }
    keys[i] = key;
    values[i] = value;
  }

  private void grow() {
    byte[][] oldKeys = keys;
    int[] oldValues = values;
    keys = new byte[oldKeys.length * 2][];
    values = new int[oldKeys.length * 2];
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != null) {
        put(oldKeys[i], oldValues[i]);
      }
    }
  }

  private static int hash(byte[] b, int from, int to) {
    int h = 1;
    for (int i = from; i < to; i++) {
      h = 31 * h + b[i];
    }
    return h ^ (h >>> 16);
  }
}
