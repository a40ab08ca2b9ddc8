package dev.minibatch.apicheck;

/** Not public: its public method is reachable only through {@link InheritedApiFixture}. */
abstract class HiddenApiBase {
  /** Part of the fixture's API though declared here. */
  public int inherited() {
    return 1;
  }
}
