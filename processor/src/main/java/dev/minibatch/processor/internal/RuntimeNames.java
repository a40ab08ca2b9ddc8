package dev.minibatch.processor.internal;

import com.palantir.javapoet.ClassName;

/** The runtime and ND4J types generated code refers to, by name (the processor does not link them). */
final class RuntimeNames {
  private RuntimeNames() {}

  static final String RT = "dev.minibatch.runtime";
  static final String INTERNAL = RT + ".internal";
  static final String ENGINE = RT + ".internal.engine";

  static final ClassName ABSTRACT_BATCH = ClassName.get(RT, "AbstractBatch");
  static final ClassName BATCH_LAYOUT = ClassName.get(RT, "BatchLayout");
  static final ClassName BATCH_PROVIDER = ClassName.get(RT, "BatchProvider");
  static final ClassName BATCH_ITERATOR = ClassName.get(RT, "BatchIterator");
  static final ClassName PROVIDER_BUILDER = ClassName.get(RT, "ProviderBuilder");
  static final ClassName SETTINGS = ClassName.get(RT, "Settings");
  static final ClassName RESUMABLE = ClassName.get(RT, "Resumable");
  static final ClassName ITERATION_STATE = ClassName.get(RT, "IterationState");
  static final ClassName SAMPLE_BATCHER = ClassName.get(INTERNAL, "SampleBatcher");
  static final ClassName SAMPLING = ClassName.get(INTERNAL + ".settings", "Sampling");
  static final ClassName COLLATE_TARGET = ClassName.get(ENGINE, "CollateTarget");
  static final ClassName COLLATE = ClassName.get(ENGINE, "Collate");
  static final ClassName SEQUENCE_FIELDS = ClassName.get(ENGINE, "SequenceFields");
  static final ClassName SEQUENCE_OPTIONS = ClassName.get(INTERNAL, "SequenceOptions");
  static final ClassName IMAGE_DECODERS = ClassName.get(RT + ".io.image", "ImageDecoders");
  static final ClassName SAMPLE_SCHEMA = ClassName.get("dev.minibatch", "SampleSchema");
  static final ClassName SAMPLE_SCHEMA_FIELD = SAMPLE_SCHEMA.nestedClass("Field");
  static final ClassName IMAGE_DECODER = ClassName.get(RT + ".io.image", "ImageDecoder");
  static final ClassName IMAGE_OPTIONS_AUGMENT = ClassName.get(RT + ".io.image", "ImageRecordProvider", "Augment");
  static final ClassName IMAGE_OPTIONS_NORMALIZE = ClassName.get(RT + ".io.image", "ImageRecordProvider", "Normalize");
  static final ClassName TOO_LONG = ClassName.get("dev.minibatch", "TooLong");

  static final ClassName DATA_DESC = ClassName.get("dev.minibatch", "DataDesc");
  static final ClassName DTYPE = ClassName.get("dev.minibatch", "DType");
  static final ClassName ROLE = ClassName.get("dev.minibatch", "Role");
  static final ClassName SHAPE = ClassName.get("dev.minibatch.shape", "Shape");

  static final ClassName INDARRAY = ClassName.get("org.nd4j.linalg.api.ndarray", "INDArray");
  static final ClassName NULLABLE = ClassName.get("org.jspecify.annotations", "Nullable");

  static final ClassName DAGGER_MODULE = ClassName.get("dagger", "Module");
  static final ClassName DAGGER_PROVIDES = ClassName.get("dagger", "Provides");
}
