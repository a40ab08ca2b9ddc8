package dev.minibatch.runtime.io;

import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.array.ArrayDataProvider;

/**
 * The settings every single-file-format provider's builder adds to {@link ProviderBuilder}: the
 * names of its one data array and one label array (the MNIST, CSV and {@code ImageRecordProvider}
 * builders extend it). Defaults {@code "data"} and {@code "softmax_label"}, as MXNet's iterators.
 *
 * @param <S> the concrete builder, returned by every setter
 */
public abstract class FileBuilder<S extends FileBuilder<S>> extends ProviderBuilder<S> {
  private String dataName = ArrayDataProvider.DEFAULT_DATA_NAME;
  private String labelName = ArrayDataProvider.DEFAULT_LABEL_NAME;

  /** For subclasses. */
  protected FileBuilder() {}

  /** For subclasses that declare defaults ({@link ProviderBuilder#ProviderBuilder(Settings)}). */
  protected FileBuilder(Settings defaults) {
    super(defaults);
  }

  /** The data array's name; default {@code "data"}. */
  public S dataName(String name) {
    this.dataName = name;
    return self();
  }

  /** The label array's name; default {@code "softmax_label"}. */
  public S labelName(String name) {
    this.labelName = name;
    return self();
  }

  /** The data array's name as set. */
  protected final String dataName() {
    return dataName;
  }

  /** The label array's name as set. */
  protected final String labelName() {
    return labelName;
  }
}
