package dev.minibatch.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.minibatch.samples.SameDiffGradients;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.TrainingConfig;
import org.nd4j.linalg.learning.config.Adam;

/**
 * Spark's local mode builds one network per trainer on threads of one JVM: concurrent quiet
 * gradient builds must hand standard output back, or the Spark sample's epoch lines vanish (as they
 * did: each call saved the other's discarding stream as the one to restore).
 */
class SameDiffGradientsConcurrencyTest {
  @Test
  void concurrentCallsLeaveStandardOutputAsItWas() throws Exception {
    PrintStream before = System.out;
    int threads = 4;
    int rounds = 5;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(pool.submit(() -> {
          for (int r = 0; r < rounds; r++) {
            SameDiff sd = MnistMlp.build();
            sd.setTrainingConfig(TrainingConfig.builder().updater(new Adam(1e-3))
                .dataSetFeatureMapping("image").dataSetLabelMapping("label").build());
            start.await();
            SameDiffGradients.createQuietly(sd);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
      assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
      PrintStream after = System.out;
      System.setOut(before); // so a failure here does not silence the tests that follow
      assertSame(before, after, "System.out after " + threads + " threads built gradients quietly " + rounds + " times");
    }
  }
}
