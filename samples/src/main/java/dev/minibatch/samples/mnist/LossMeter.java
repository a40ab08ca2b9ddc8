package dev.minibatch.samples.mnist;

import org.nd4j.autodiff.listeners.At;
import org.nd4j.autodiff.listeners.BaseListener;
import org.nd4j.autodiff.listeners.Loss;
import org.nd4j.autodiff.listeners.Operation;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.dataset.api.MultiDataSet;

/** Averages the training loss SameDiff reports after each iteration. */
final class LossMeter extends BaseListener {
  private double sum;
  private long iterations;

  @Override
  public boolean isActive(Operation operation) {
    return operation == Operation.TRAINING;
  }

  @Override
  public void iterationDone(SameDiff sd, At at, MultiDataSet dataSet, Loss loss) {
    sum += loss.totalLoss();
    iterations++;
  }

  /** The mean loss since the last call, and starts over. */
  double takeMean() {
    double mean = iterations == 0 ? Double.NaN : sum / iterations;
    sum = 0;
    iterations = 0;
    return mean;
  }
}
