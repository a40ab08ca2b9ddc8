package dev.minibatch;

/** Whether a provided array is an input of the model or a target it learns. */
public enum Role {
  /** A model input (MXNet's {@code provide_data}). */
  DATA,
  /** A training target (MXNet's {@code provide_label}). */
  LABEL
}
