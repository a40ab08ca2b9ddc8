package dev.minibatch.processor.internal;

/**
 * The compile-time estimate of a provider's batch memory: the bytes of one sample's rows in every
 * batch array (variable axes at their declared bound, plus the mask and length of each length
 * group), and of a batch at the declared default batch size.
 *
 * @param bytesPerSample one sample's bytes, variable axes at their bound (0 steps when unbounded)
 * @param bytesPerSampleStep the bytes one more step of every length group adds to one sample
 * @param batchSize the declared default batch size (0: none)
 * @param unbounded the provided names of variable axes without a bound
 */
record MemoryEstimate(long bytesPerSample, long bytesPerSampleStep, int batchSize, java.util.List<String> unbounded) {
  static MemoryEstimate of(SampleDescriptor d) {
    long fixed = 0;
    long perStep = 0;
    long bounded = 0;
    java.util.List<String> unbounded = new java.util.ArrayList<>();
    for (FieldDescriptor f : d.fields()) {
      long bytes = f.elementCount() * f.dtype().byteSize();
      if (!f.variable()) {
        fixed += bytes;
      } else {
        perStep += bytes;
        if (f.maxLength() > 0) {
          bounded += bytes * f.maxLength();
        } else {
          unbounded.add(f.name());
        }
      }
    }
    for (int g = 0; g < d.groups().size(); g++) {
      FieldDescriptor root = d.fields().get(d.groups().get(g));
      fixed += Integer.BYTES; // the length
      perStep += Float.BYTES; // the mask
      bounded += (long) Float.BYTES * root.maxLength();
    }
    return new MemoryEstimate(fixed + bounded, perStep, d.batchSize(), java.util.List.copyOf(unbounded));
  }

  /** The bytes of a batch at the default batch size; 0 when none is declared. */
  long bytesPerBatch() {
    return bytesPerSample * batchSize;
  }

  /** One sentence for the generated javadoc. */
  String javadoc() {
    StringBuilder sb = new StringBuilder("a sample takes ").append(bytesPerSample).append(" bytes of batch memory");
    if (bytesPerSampleStep > 0) {
      sb.append(unbounded.isEmpty() ? " (variable axes at their maxLength" : " (bounded variable axes at their maxLength")
          .append(", masks and lengths included)");
    }
    if (!unbounded.isEmpty()) {
      sb.append(", plus ").append(bytesPerSampleStep).append(" bytes per step of the longest sample for the unbounded ")
          .append(String.join(", ", unbounded));
    }
    if (batchSize > 0) {
      sb.append("; a batch of the default ").append(batchSize).append(" samples, ").append(bytesPerBatch())
          .append(" bytes");
    }
    return sb.append(". A provider holds two such batches (more with reader threads).").toString();
  }
}
