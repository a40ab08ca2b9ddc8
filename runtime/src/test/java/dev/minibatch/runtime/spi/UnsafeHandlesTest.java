package dev.minibatch.runtime.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.Test;

class UnsafeHandlesTest {
  @Test
  void bindsAnInstanceMethodOnJdksBefore24AndNothingElse() throws Throwable {
    MethodHandle pageSize = UnsafeHandles.find("pageSize", int.class);
    if (Runtime.version().feature() >= 24) {
      assertNull(pageSize);
      return;
    }
    assertNotNull(pageSize);
    // The kernel's page size as the JDK's own mapping code sees it: a power of two, at least 4 KiB.
    int bytes = (int) pageSize.invokeExact();
    assertEquals(0, bytes & (bytes - 1), "a power of two: " + bytes);
    assertTrue(bytes >= 4096, "at least 4 KiB: " + bytes);
    assertNull(UnsafeHandles.find("noSuchMethod", void.class));
    assertNull(UnsafeHandles.find("pageSize", long.class), "another signature is not found");
    // The three the runtime and shards use, bound to the instance: the receiver is gone from their types.
    assertEquals(java.lang.invoke.MethodType.methodType(void.class, long.class, long.class, long.class),
        UnsafeHandles.copyMemory().type());
    assertEquals(java.lang.invoke.MethodType.methodType(byte.class, long.class), UnsafeHandles.getByte().type());
    assertEquals(java.lang.invoke.MethodType.methodType(void.class, java.nio.ByteBuffer.class),
        UnsafeHandles.invokeCleaner().type());
  }
}
