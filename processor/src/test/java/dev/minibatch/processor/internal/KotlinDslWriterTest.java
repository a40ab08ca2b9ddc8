package dev.minibatch.processor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The DSL's entry-point names, from the provider's name as a Kotlin reader would write them. */
class KotlinDslWriterTest {
  @Test
  void functionNames() {
    assertEquals("sensorProvider", KotlinDslWriter.functionName("SensorProvider"));
    assertEquals("mnistDigitProvider", KotlinDslWriter.functionName("MNISTDigitProvider"));
    assertEquals("outer_InnerProvider", KotlinDslWriter.functionName("Outer_InnerProvider"));
    assertEquals("xProvider", KotlinDslWriter.functionName("XProvider"));
  }
}
