package dev.minibatch.apicheck;

/** A public class whose public method comes from a superclass outside the API (for PublicApiSelfTest). */
public final class InheritedApiFixture extends InheritedApiFixture.Base {
  /** Not public: its public method is only reachable through the fixture. */
  abstract static class Base {
    /** Part of the fixture's API though declared here. */
    public int inherited() {
      return 1;
    }
  }
}
