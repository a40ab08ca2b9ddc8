package dev.minibatch.apicheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The listing of this very package's compiled test classes, whose public members are known here. */
class PublicApiSelfTest {
  private static final Path CLASSES = Path.of("target", "test-classes");

  @Test
  void listsPublicTypesAndTheirPublicMembersOnly() {
    List<String> lines = List.of(PublicApi.of(CLASSES).text("self").split("\n"));
    assertTrue(lines.contains("dev.minibatch.apicheck.PublicApi final class"), lines.toString());
    assertTrue(lines.contains("dev.minibatch.apicheck.PublicApi | static check(java.lang.String, java.nio.file.Path, "
        + "java.nio.file.Path): dev.minibatch.apicheck.PublicApi"));
    assertTrue(lines.contains("dev.minibatch.apicheck.PublicApi | static UPDATE_PROPERTY: java.lang.String"));
    assertFalse(lines.stream().anyMatch(l -> l.contains("exported(")), "a private method is listed");
    assertFalse(lines.stream().anyMatch(l -> l.contains("PublicApiSelfTest")), "a package-private class is listed");
    assertTrue(lines.contains("dev.minibatch.apicheck.InheritedApiFixture | inherited(): int"),
        "a public method inherited from a class outside the API is listed on the public class");
    assertFalse(lines.stream().anyMatch(l -> l.startsWith("dev.minibatch.apicheck.HiddenApiBase")));
  }

  @Test
  void aDifferenceNamesTheAddedAndRemovedLines(@TempDir Path dir) throws IOException {
    Path listing = dir.resolve("public-api.txt");
    String actual = PublicApi.of(CLASSES).text("self");
    Files.writeString(listing, actual.replace("dev.minibatch.apicheck.PublicApi | userTypes(): int\n", "")
        + "dev.minibatch.apicheck.Gone class\n");
    // Compare even in a build that rewrites the listings.
    String update = System.clearProperty(PublicApi.UPDATE_PROPERTY);
    AssertionError e;
    try {
      e = assertThrows(AssertionError.class, () -> PublicApi.check("self", CLASSES, listing));
    } finally {
      if (update != null) {
        System.setProperty(PublicApi.UPDATE_PROPERTY, update);
      }
    }
    assertTrue(e.getMessage().contains("\n  + dev.minibatch.apicheck.PublicApi | userTypes(): int"), e.getMessage());
    assertTrue(e.getMessage().contains("\n  - dev.minibatch.apicheck.Gone class"), e.getMessage());
    Files.writeString(listing, actual);
    assertEquals(actual, PublicApi.check("self", CLASSES, listing).text("self"));
  }

  @Test
  void aSignatureOutsideInternalPackagesThatNamesAnInternalTypeIsALeak() {
    List<String> lines = List.of(
        "dev.minibatch.a.Provider final class : dev.minibatch.a.internal.Base<dev.minibatch.a.Batch>",
        "dev.minibatch.a.Provider | size(): int",
        "dev.minibatch.a.Provider.Builder | batcher(dev.minibatch.a.internal.settings.Sampling): void",
        "dev.minibatch.a.internal.Base abstract class",
        "dev.minibatch.a.internal.Base | engine(): dev.minibatch.a.internal.Engine",
        "dev.minibatch.a.Tool | internalName(): java.lang.String");
    assertEquals(List.of(lines.get(0), lines.get(2)), PublicApi.leaks(lines, java.util.Set.of()));
    // A member naming a type that is not public outside its package: nobody outside could call it.
    List<String> hiddenParameter = List.of("dev.minibatch.a.Batch | static of(dev.minibatch.a.Range, int): void",
        "dev.minibatch.a.Batch | size(): int");
    assertEquals(List.of(hiddenParameter.get(0)), PublicApi.leaks(hiddenParameter, java.util.Set.of("dev.minibatch.a.Range")));
  }
}
