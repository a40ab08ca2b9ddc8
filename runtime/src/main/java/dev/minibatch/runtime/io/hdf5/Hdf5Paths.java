package dev.minibatch.runtime.io.hdf5;

import dev.minibatch.runtime.io.FileFormatException;
import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Link;
import io.jhdf.api.Node;
import io.jhdf.links.SoftLink;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Walks the groups and links of one HDF5 file without trusting its link graph. jhdf follows a soft
 * link by resolving its target path from the root, which follows the next link, and so on: a cycle
 * of soft links never ends. Here a path is resolved one name at a time, a soft link's target path
 * replacing the link, with at most {@value #MAX_LINK_HOPS} soft links per path (the HDF5 library's
 * own default limit, {@code H5Pset_nlinks}); a listing visits each object once (hard links can make
 * a group its own descendant). External links are not followed: a file that names another file is
 * not read on the strength of the first file's content.
 */
final class Hdf5Paths {
  /** The soft links one path may follow, as the HDF5 library's default {@code nlinks}. */
  static final int MAX_LINK_HOPS = 16;

  private final HdfFile hdf;
  private final Path file;

  Hdf5Paths(HdfFile hdf, Path file) {
    this.hdf = hdf;
    this.file = file;
  }

  /**
   * The object at {@code path} ("group/name", a leading '/' optional), or null when no object has
   * that path.
   *
   * @throws FileFormatException naming the file and the path for a link cycle (more than {@value
   *     #MAX_LINK_HOPS} soft links), an external link, or a group that cannot be read
   */
  @Nullable Node resolve(String path) {
    Deque<String> names = new ArrayDeque<>(split(path));
    Node node = hdf;
    String walked = "";
    int hops = 0;
    while (!names.isEmpty()) {
      String name = names.removeFirst();
      if (!(node instanceof Group)) {
        return null;
      }
      Group parent = (Group) node;
      String at = walked + "/" + name;
      Node child = Jhdf.call(file, "path '" + path + "' at group '" + (walked.isEmpty() ? "/" : walked) + "'",
          () -> parent.getChild(name));
      if (child == null) {
        return null;
      }
      if (child instanceof SoftLink) {
        if (++hops > MAX_LINK_HOPS) {
          throw new FileFormatException(file.toString(), "path '" + path + "': more than " + MAX_LINK_HOPS
              + " soft links to follow (at '" + at + "'); the links form a cycle");
        }
        String target = ((SoftLink) child).getTargetPath();
        List<String> targetNames = split(target);
        for (int i = targetNames.size() - 1; i >= 0; i--) {
          names.addFirst(targetNames.get(i));
        }
        // An absolute target starts again at the root; a relative one in the link's group.
        if (target.startsWith("/")) {
          node = hdf;
          walked = "";
        }
        continue;
      }
      if (child instanceof Link) {
        throw new FileFormatException(file.toString(), "path '" + path + "': '" + at + "' is an external link to '"
            + ((Link) child).getTargetPath() + "'; only datasets of the file itself are read: list the other file in the "
            + "specification instead");
      }
      node = child;
      walked = at;
    }
    return node;
  }

  /**
   * Every dataset path in the file, depth first, without a leading '/', each object once; links are
   * not followed.
   *
   * @throws FileFormatException naming the file if a group cannot be read
   */
  List<String> datasets() {
    List<String> out = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    Deque<Node> stack = new ArrayDeque<>();
    stack.push(hdf);
    while (!stack.isEmpty()) {
      Node node = stack.pop();
      if (node instanceof Group) {
        Group g = (Group) node;
        List<Node> children = Jhdf.call(file, "group '" + g.getPath() + "'", () -> new ArrayList<>(g.getChildren().values()));
        // Pushed in reverse, so the walk visits children in the group's order.
        for (int i = children.size() - 1; i >= 0; i--) {
          Node n = children.get(i);
          if (n.isLink()) {
            continue;
          }
          long address = Jhdf.call(file, "group '" + g.getPath() + "'", n::getAddress);
          if (seen.add(address)) {
            stack.push(n);
          }
        }
      } else if (node instanceof Dataset) {
        String p = node.getPath();
        out.add(p.startsWith("/") ? p.substring(1) : p);
      }
    }
    return out;
  }

  /** The names of {@code path}, without empty names and "." (the group itself). */
  private static List<String> split(String path) {
    List<String> names = new ArrayList<>();
    for (String n : path.split("/")) {
      if (!n.isEmpty() && !n.equals(".")) {
        names.add(n);
      }
    }
    return names;
  }
}
