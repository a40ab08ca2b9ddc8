package dev.minibatch.runtime;

import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The arrays a batch holds: the data descriptions, then the label descriptions, each in declared
 * order, with a lookup from name to position. Names are unique across data and labels.
 */
public final class BatchLayout {
  private final List<DataDesc> data;
  private final List<DataDesc> label;
  private final List<DataDesc> all;
  private final List<String> names;
  private final Map<String, Integer> positions;

  private BatchLayout(List<DataDesc> data, List<DataDesc> label) {
    this.data = List.copyOf(data);
    this.label = List.copyOf(label);
    List<DataDesc> a = new ArrayList<>(data);
    a.addAll(label);
    this.all = Collections.unmodifiableList(a);
    List<String> n = new ArrayList<>();
    Map<String, Integer> p = new HashMap<>();
    for (DataDesc d : a) {
      if (p.putIfAbsent(d.name(), n.size()) != null) {
        throw new IllegalArgumentException("the name '" + d.name() + "' is provided twice; names must be unique across data and labels");
      }
      n.add(d.name());
    }
    this.names = Collections.unmodifiableList(n);
    this.positions = p;
  }

  /**
   * A layout of {@code data} then {@code label}.
   *
   * @throws IllegalArgumentException if there is no data, a description has the wrong role, or a
   *     name repeats
   */
  public static BatchLayout of(List<DataDesc> data, List<DataDesc> label) {
    if (data.isEmpty()) {
      throw new IllegalArgumentException("a provider needs at least one data array");
    }
    for (DataDesc d : data) {
      if (d.role() != Role.DATA) {
        throw new IllegalArgumentException("'" + d.name() + "' is listed as data but its role is " + d.role());
      }
    }
    for (DataDesc d : label) {
      if (d.role() != Role.LABEL) {
        throw new IllegalArgumentException("'" + d.name() + "' is listed as a label but its role is " + d.role());
      }
    }
    return new BatchLayout(data, label);
  }

  /** The data descriptions. */
  public List<DataDesc> data() {
    return data;
  }

  /** The label descriptions. */
  public List<DataDesc> label() {
    return label;
  }

  /** Data then label descriptions. */
  public List<DataDesc> all() {
    return all;
  }

  /** Data then label names. */
  public List<String> names() {
    return names;
  }

  /** The number of arrays. */
  public int size() {
    return all.size();
  }

  /**
   * The position of {@code name} in {@link #all()}.
   *
   * @throws IllegalArgumentException if there is no such name, listing the names there are
   */
  public int position(String name) {
    Integer p = positions.get(name);
    if (p == null) {
      throw new IllegalArgumentException("no array named '" + name + "'; this batch provides " + names);
    }
    return p;
  }

  /** True if the layout has {@code name}. */
  public boolean contains(String name) {
    return positions.containsKey(name);
  }

  @Override
  public String toString() {
    return "data " + data + ", label " + label;
  }
}
