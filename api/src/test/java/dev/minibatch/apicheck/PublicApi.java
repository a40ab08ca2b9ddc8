package dev.minibatch.apicheck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public API of one module as a sorted text listing: every public type of its main classes and
 * every public or protected member those types declare, with generic signatures. Each module keeps
 * its listing checked in ({@code <module>/public-api.txt}) and a test compares it with the compiled
 * classes, so a new public type or member is a reviewed change to that file, not an accident.
 *
 * <p>Types in a package with an {@code internal} segment are listed (generated code calls them)
 * but counted apart: the budget a module sets is for the types users are meant to touch. No
 * signature of a type outside them may name one of their types ({@link #leaks()}): the check fails
 * on such a line before it compares the listing.
 */
public final class PublicApi {
  /** Set to {@code true} to rewrite the listing from the classes instead of comparing. */
  public static final String UPDATE_PROPERTY = "minibatch.updateApi";

  private final List<String> lines;
  private final int userTypes;
  private final int internalTypes;

  private final java.util.Set<String> hiddenTypes;

  private PublicApi(List<String> lines, int userTypes, int internalTypes, java.util.Set<String> hiddenTypes) {
    this.hiddenTypes = hiddenTypes;
    this.lines = lines;
    this.userTypes = userTypes;
    this.internalTypes = internalTypes;
  }

  /** The public top-level types outside internal packages. */
  public int userTypes() {
    return userTypes;
  }

  /**
   * The lines of a type outside internal packages whose signature names a type of an internal
   * package: a public supertype, parameter, return or field type that users would have to reach
   * into {@code internal} for.
   */
  public List<String> leaks() {
    return leaks(lines, hiddenTypes);
  }

  /**
   * {@link #leaks()} of a listing's lines: those of a type outside internal packages that name an
   * internal type, or one of {@code hiddenTypes} (the module's types that are not public, which
   * nobody outside could name to call the member).
   */
  static List<String> leaks(List<String> lines, java.util.Set<String> hiddenTypes) {
    List<String> leaks = new ArrayList<>();
    java.util.regex.Pattern name = java.util.regex.Pattern.compile("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)+");
    for (String line : lines) {
      int space = line.indexOf(' ');
      String owner = space < 0 ? line : line.substring(0, space);
      if (owner.contains(".internal.")) {
        continue;
      }
      String signature = line.substring(owner.length());
      // A public class may extend a package-private base (its public methods are listed on the
      // class); a member's signature may not name a type nobody outside can name.
      boolean member = signature.startsWith(" | ");
      boolean hidden = member && name.matcher(signature).results().map(java.util.regex.MatchResult::group)
          .anyMatch(hiddenTypes::contains);
      if (signature.contains(".internal.") || hidden) {
        leaks.add(line);
      }
    }
    return leaks;
  }

  /** The listing's text: a header line, then one line per type and per member, sorted. */
  public String text(String module) {
    return "# The public API of " + module + ": " + userTypes + " public top-level types outside internal packages, "
        + internalTypes + " in internal packages. Rewrite with -D" + UPDATE_PROPERTY + "=true.\n"
        + String.join("\n", lines) + "\n";
  }

  /** Lists the public API of the classes under {@code classes} (a module's {@code target/classes}). */
  public static PublicApi of(Path classes) {
    List<String> names;
    try (Stream<Path> files = Files.walk(classes)) {
      names = files.map(p -> classes.relativize(p).toString().replace('\\', '/'))
          .filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class") && !n.endsWith("package-info.class"))
          .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TreeSet<String> lines = new TreeSet<>();
    java.util.Set<String> hidden = new java.util.HashSet<>();
    int user = 0;
    int internal = 0;
    ClassLoader loader = PublicApi.class.getClassLoader();
    for (String name : names) {
      Class<?> c;
      try {
        c = Class.forName(name, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw new IllegalStateException("cannot load " + name + " to list it", e);
      }
      if (!exported(c)) {
        if (!c.isAnonymousClass() && !c.isLocalClass() && !c.isSynthetic()) {
          hidden.add(c.getName().replace('$', '.'));
        }
        continue;
      }
      if (c.getEnclosingClass() == null) {
        if (c.getPackageName().contains(".internal")) {
          internal++;
        } else {
          user++;
        }
      }
      list(c, lines);
    }
    // Nested types read Outer.Inner everywhere, as in source.
    return new PublicApi(lines.stream().map(l -> l.replace('$', '.')).distinct().sorted().toList(), user, internal,
        java.util.Set.copyOf(hidden));
  }

  /**
   * Compares the listing of {@code classes} with the checked-in {@code listing}, or rewrites it
   * when {@link #UPDATE_PROPERTY} is set.
   *
   * @throws AssertionError naming every added and removed line
   */
  public static PublicApi check(String module, Path classes, Path listing) {
    PublicApi api = of(classes);
    String actual = api.text(module);
    try {
      if (Boolean.getBoolean(UPDATE_PROPERTY)) {
        Files.writeString(listing, actual, StandardCharsets.UTF_8);
        checkNoLeaks(module, api);
        return api;
      }
      checkNoLeaks(module, api);
      String expected = Files.exists(listing) ? Files.readString(listing, StandardCharsets.UTF_8) : "";
      if (!expected.equals(actual)) {
        List<String> was = Arrays.asList(expected.split("\n"));
        List<String> now = Arrays.asList(actual.split("\n"));
        String added = now.stream().filter(l -> !was.contains(l)).map(l -> "  + " + l).collect(Collectors.joining("\n"));
        String removed = was.stream().filter(l -> !now.contains(l)).map(l -> "  - " + l).collect(Collectors.joining("\n"));
        throw new AssertionError("the public API of " + module + " differs from " + listing
            + " (review the change, then rewrite the listing with mvn verify -D" + UPDATE_PROPERTY + "=true):\n"
            + added + (added.isEmpty() || removed.isEmpty() ? "" : "\n") + removed);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return api;
  }

  private static void checkNoLeaks(String module, PublicApi api) {
    List<String> leaks = api.leaks();
    if (!leaks.isEmpty()) {
      throw new AssertionError("the public API of " + module + " names internal types outside internal packages"
          + " (move the type out of internal, or keep the member off the public API):\n  "
          + String.join("\n  ", leaks));
    }
  }

  /** Public, and every enclosing type public too: reachable from outside the module. */
  private static boolean exported(Class<?> c) {
    if (c.isSynthetic() || c.isAnonymousClass() || c.isLocalClass()) {
      return false;
    }
    for (Class<?> t = c; t != null; t = t.getEnclosingClass()) {
      if (!Modifier.isPublic(t.getModifiers())) {
        return false;
      }
    }
    return true;
  }

  private static void list(Class<?> c, TreeSet<String> lines) {
    String type = c.getName().replace('$', '.');
    lines.add(type + " " + kind(c) + supertypes(c));
    boolean extendable = !Modifier.isFinal(c.getModifiers()) && !c.isEnum() && !c.isRecord();
    for (Constructor<?> k : c.getDeclaredConstructors()) {
      if (visible(k.getModifiers(), extendable) && !k.isSynthetic()) {
        lines.add(type + " | " + prefix(k.getModifiers()) + "<init>(" + types(k.getGenericParameterTypes()) + ")");
      }
    }
    // Public methods a public class inherits from a superclass outside the API are API too.
    List<Method> methods = new ArrayList<>(List.of(c.getDeclaredMethods()));
    for (Class<?> s = c.getSuperclass(); s != null && s != Object.class && !exported(s); s = s.getSuperclass()) {
      methods.addAll(List.of(s.getDeclaredMethods()));
    }
    for (Method m : methods) {
      if (visible(m.getModifiers(), extendable) && !m.isSynthetic() && !m.isBridge()) {
        lines.add(type + " | " + prefix(m.getModifiers()) + m.getName() + "(" + types(m.getGenericParameterTypes()) + "): "
            + m.getGenericReturnType().getTypeName());
      }
    }
    for (Field f : c.getDeclaredFields()) {
      if (visible(f.getModifiers(), extendable) && !f.isSynthetic() && !f.isEnumConstant()) {
        lines.add(type + " | " + prefix(f.getModifiers()) + f.getName() + ": " + f.getGenericType().getTypeName());
      } else if (f.isEnumConstant()) {
        lines.add(type + " | constant " + f.getName());
      }
    }
  }

  private static boolean visible(int modifiers, boolean extendable) {
    return Modifier.isPublic(modifiers) || (extendable && Modifier.isProtected(modifiers));
  }

  private static String prefix(int modifiers) {
    return (Modifier.isProtected(modifiers) ? "protected " : "") + (Modifier.isStatic(modifiers) ? "static " : "");
  }

  private static String kind(Class<?> c) {
    if (c.isAnnotation()) {
      return "@interface";
    }
    if (c.isInterface()) {
      return c.isSealed() ? "sealed interface" : "interface";
    }
    if (c.isEnum()) {
      return "enum";
    }
    if (c.isRecord()) {
      return "record";
    }
    int m = c.getModifiers();
    return (c.isSealed() ? "sealed " : "") + (Modifier.isAbstract(m) ? "abstract " : "") + (Modifier.isFinal(m) ? "final " : "")
        + "class";
  }

  private static String supertypes(Class<?> c) {
    List<String> out = new ArrayList<>();
    Type s = c.getGenericSuperclass();
    if (s != null && s != Object.class && !c.isEnum() && !c.isRecord()) {
      out.add(s.getTypeName());
    }
    for (Type i : c.getGenericInterfaces()) {
      if (!c.isAnnotation()) {
        out.add(i.getTypeName());
      }
    }
    return out.isEmpty() ? "" : " : " + String.join(", ", out);
  }

  private static String types(Type[] types) {
    return Arrays.stream(types).map(Type::getTypeName).collect(Collectors.joining(", "));
  }
}
