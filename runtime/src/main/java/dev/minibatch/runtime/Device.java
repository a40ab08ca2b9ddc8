package dev.minibatch.runtime;

import dev.minibatch.runtime.check.Check;

/**
 * A device a batch can be placed on: {@code cpu(i)} or {@code gpu(i)} (MXNet's contexts).
 *
 * @param kind CPU or GPU
 * @param id the device number, from 0
 */
public record Device(Kind kind, int id) {
  /** The kind of a device. */
  public enum Kind {
    /** Host memory. */
    CPU,
    /** A CUDA device; needs ND4J's CUDA backend on the classpath. */
    GPU
  }

  /** Checks the id. */
  public Device {
    Check.atLeast("device id", id, 0);
  }

  /** The CPU device {@code i} (all CPU devices share host memory). */
  public static Device cpu(int i) {
    return new Device(Kind.CPU, i);
  }

  /** CPU device 0. */
  public static Device cpu() {
    return cpu(0);
  }

  /** The GPU {@code i}. */
  public static Device gpu(int i) {
    return new Device(Kind.GPU, i);
  }

  @Override
  public String toString() {
    return (kind == Kind.CPU ? "cpu(" : "gpu(") + id + ")";
  }
}
