package dev.minibatch.runtime;

import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.api.ndarray.INDArray;

/** Puts arrays on devices. On the CPU backend every device shares host memory. */
final class Placement {
  private Placement() {}

  /**
   * {@code array} on {@code device}: the array itself for a CPU device, a copy in the GPU's memory
   * for a GPU device.
   *
   * @throws IllegalStateException for a GPU device when ND4J runs on its CPU backend, or a GPU id
   *     beyond the devices ND4J sees
   */
  static INDArray place(INDArray array, Device device) {
    if (device.kind() == Device.Kind.CPU) {
      return array;
    }
    String backend = Nd4j.getBackend().getClass().getSimpleName();
    if (!backend.toLowerCase(java.util.Locale.ROOT).contains("cuda")) {
      throw new IllegalStateException(device + " requested, but ND4J runs on " + backend
          + "; put the CUDA backend (org.nd4j:nd4j-cuda-11.6) on the classpath instead of nd4j-native");
    }
    int n = Nd4j.getAffinityManager().getNumberOfDevices();
    if (device.id() >= n) {
      throw new IllegalStateException(device + " requested, but ND4J sees " + n + " GPU(s)");
    }
    return Nd4j.getAffinityManager().replicateToDevice(device.id(), array);
  }
}
