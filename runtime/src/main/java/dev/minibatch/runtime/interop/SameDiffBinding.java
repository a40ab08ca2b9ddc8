package dev.minibatch.runtime.interop;

import dev.minibatch.DataDesc;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.internal.ProviderManifest;
import dev.minibatch.runtime.spi.DTypes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.TrainingConfig;
import org.nd4j.linalg.api.buffer.DataType;

/**
 * Binds a provider to a SameDiff graph by name: checks, before training, that every provided array
 * has a placeholder of the same name, rank, non-batch dims and dtype, and sets a {@link
 * TrainingConfig}'s feature and label mappings from the provider's names.
 */
public final class SameDiffBinding {
  private SameDiffBinding() {}

  /**
   * Checks {@code provider} against {@code graph}'s placeholders. A placeholder's batch dim may be
   * -1 (free) or the provider's batch size; a variable axis ({@link dev.minibatch.shape.Shape#VARIABLE}
   * in the provided shape, whose length changes from batch to batch) needs -1 in the placeholder. A placeholder that no provided array feeds is a
   * mismatch too: {@code fit} would fail on it later.
   *
   * @throws IllegalArgumentException listing every mismatch, one per line
   */
  public static void check(BatchProvider<?> provider, SameDiff graph) {
    List<DataDesc> all = new ArrayList<>(provider.provideData());
    all.addAll(provider.provideLabel());
    check(all, true, "the provider", graph);
  }

  /**
   * Checks the generated provider (or the sample of a generated provider) named {@code className}
   * against {@code graph}'s placeholders from its schema manifest, read from {@code loader}'s class
   * path without loading the provider class, building it or reading data: as {@link
   * #check(BatchProvider, SameDiff)}, except that the batch axis is not compared, since the batch
   * size is chosen when the provider is built.
   *
   * @throws IllegalArgumentException listing every mismatch, one per line, or naming the manifest
   *     resources looked for when there is none
   */
  public static void check(String className, ClassLoader loader, SameDiff graph) {
    ProviderManifest manifest = ProviderManifest.load(className, loader).orElseThrow(() -> new IllegalArgumentException(
        "no generated schema for " + className + " on the class path: looked for "
        + ProviderManifest.resourceNames(className) + "; is it a provider (or sample) of @DataProvider?"));
    check(manifest, graph);
  }

  /** {@link #check(String, ClassLoader, SameDiff)} from a manifest already read. */
  static void check(ProviderManifest manifest, SameDiff graph) {
    long batch = Math.max(1, manifest.batchSize());
    List<DataDesc> all = new ArrayList<>(manifest.provideData(batch));
    all.addAll(manifest.provideLabel(batch));
    check(all, false, manifest.provider(), graph);
  }

  private static void check(List<DataDesc> all, boolean batchAxis, String what, SameDiff graph) {
    List<String> problems = new ArrayList<>();
    for (DataDesc d : all) {
      SDVariable v = graph.hasVariable(d.name()) ? graph.getVariable(d.name()) : null;
      if (v == null) {
        problems.add("'" + d.name() + "' is provided but the graph has no variable of that name; placeholders are " + placeholderNames(graph));
        continue;
      }
      if (!v.isPlaceHolder()) {
        problems.add("'" + d.name() + "' is provided but the graph's '" + d.name() + "' is a " + v.getVariableType() + ", not a placeholder");
        continue;
      }
      long[] want = d.shape().toLongArray();
      long[] have = v.placeholderShape();
      if (have == null) {
        have = v.getShape();
      }
      if (have != null) {
        boolean ok = have.length == want.length;
        for (int i = batchAxis ? 0 : 1; ok && i < want.length; i++) {
          ok = have[i] < 0 || have[i] == want[i];
        }
        if (!ok) {
          int variable = d.shape().variableAxis();
          problems.add("'" + d.name() + "': provided shape " + Arrays.toString(want) + " (batch axis first), placeholder shape "
              + Arrays.toString(have) + (variable >= 0 && have.length == want.length && have[variable] >= 0
                  ? "; axis " + variable + " varies from batch to batch, so the placeholder needs -1 there" : ""));
        }
      }
      DataType expected = DTypes.toNd4j(d.dtype());
      if (v.dataType() != expected) {
        problems.add("'" + d.name() + "': provided dtype " + d.dtype() + " (" + expected + "), placeholder dtype " + v.dataType());
      }
    }
    List<String> provided = new ArrayList<>(all.stream().map(DataDesc::name).toList());
    for (DataDesc d : all) {
      if (!d.shape().isFixed()) {
        provided.add(maskName(d.name()));
      }
    }
    for (String placeholder : placeholderNames(graph)) {
      if (!provided.contains(placeholder)) {
        problems.add("placeholder '" + placeholder + "' is not provided; the provider's names are " + provided);
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(what + " does not match the graph's placeholders:\n  - " + String.join("\n  - ", problems));
    }
  }

  /**
   * The placeholder name that receives the mask of {@code name}'s variable axis: {@code
   * <name>_mask}. A graph may declare it (FLOAT32, {@code [-1, -1]}) to weigh its loss by the real
   * steps.
   */
  public static String maskName(String name) {
    return name + "_mask";
  }

  /**
   * Sets {@code builder}'s feature and label mappings to the provider's data and label names, after
   * {@link #check}; and, where the graph declares a {@link #maskName mask placeholder} for every
   * data (or every label) array, the feature (or label) mask mappings too, so {@code fit} feeds the
   * masks of the batches' variable axes.
   */
  public static TrainingConfig.Builder bind(TrainingConfig.Builder builder, BatchProvider<?> provider, SameDiff graph) {
    check(provider, graph);
    List<String> data = provider.provideData().stream().map(DataDesc::name).toList();
    List<String> labels = provider.provideLabel().stream().map(DataDesc::name).toList();
    builder.dataSetFeatureMapping(data).dataSetLabelMapping(labels);
    List<String> placeholders = placeholderNames(graph);
    List<String> dataMasks = data.stream().map(SameDiffBinding::maskName).toList();
    List<String> labelMasks = labels.stream().map(SameDiffBinding::maskName).toList();
    if (placeholders.containsAll(dataMasks)) {
      builder.dataSetFeatureMaskMapping(dataMasks);
    }
    if (!labelMasks.isEmpty() && placeholders.containsAll(labelMasks)) {
      builder.dataSetLabelMaskMapping(labelMasks);
    }
    return builder;
  }

  private static List<String> placeholderNames(SameDiff graph) {
    return graph.variables().stream().filter(SDVariable::isPlaceHolder).map(SDVariable::name).sorted().toList();
  }
}
