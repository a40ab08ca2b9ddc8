package dev.minibatch.apicheck;

/** A public class whose public method comes from a superclass outside the API (for PublicApiSelfTest). */
public final class InheritedApiFixture extends HiddenApiBase {}
