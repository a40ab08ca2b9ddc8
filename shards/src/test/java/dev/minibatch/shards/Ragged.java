package dev.minibatch.shards;

import dev.minibatch.DType;
import dev.minibatch.DataDesc;
import dev.minibatch.Role;
import dev.minibatch.TooLong;
import dev.minibatch.runtime.BatchLayout;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.internal.engine.BatchEngine;
import dev.minibatch.runtime.internal.engine.Collate;
import dev.minibatch.runtime.internal.engine.CollateTarget;
import dev.minibatch.runtime.spi.EngineProvider;
import dev.minibatch.runtime.internal.engine.SequenceFields;
import dev.minibatch.runtime.internal.engine.Sequences;
import dev.minibatch.shape.Shape;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.AbstractList;
import java.util.List;

/**
 * Variable-length samples whose every value is known from the sample's id {@code i}, for writing
 * shard sets (the shards module has no annotation processor): {@code tokens} INT32 {@code [T]} of
 * {@link #tokens(int)} steps, step {@code t} = {@code i * 100 + t}; {@code frames} FLOAT32 {@code
 * [2, T]} of {@link #frames(int)} steps, element {@code [c][t]} = {@code i * 1000 + c * 100 + t};
 * {@code digit} INT32 = {@code i % 10}. Written to the batch as the engine's variable-length rows
 * (padded with 0, masks and lengths), as a generated provider writes them.
 */
final class Ragged extends EngineProvider<NamedBatch> {
  private final BatchEngine<NamedBatch> engine;

  static int tokens(int i) {
    return 1 + (i * 7) % 13;
  }

  static int frames(int i) {
    return 1 + i % 5;
  }

  private Ragged(Builder b, dev.minibatch.runtime.internal.settings.Sampling sampling) {
    List<Integer> ids = new AbstractList<>() {
      @Override
      public Integer get(int index) {
        return index;
      }

      @Override
      public int size() {
        return b.samples;
      }
    };
    SequenceFields<Integer> fields = new SequenceFields<>(new int[] {0, 1, -1}, new int[] {0, 1, -1},
        List.of("tokens", "frames"), new int[] {0, 0}, new TooLong[] {TooLong.ERROR, TooLong.ERROR},
        (id, group, index) -> group == 0 ? tokens(id) : frames(id));
    int[] pad = Collate.padRow(0);
    float[] padF = Collate.padRow(0f);
    this.engine = BatchEngine.<NamedBatch>builder("Ragged", b.samples, sampling)
        .layout(Ragged::layout)
        .batches(NamedBatch::new)
        .sequences(Sequences.measure(ids, fields, false))
        .rows((indices, from, to, slot) -> {
          CollateTarget out = CollateTarget.of(slot);
          IntBuffer tok = out.ints(0);
          FloatBuffer fr = out.floats(1);
          for (int r = from; r < to; r++) {
            int id = indices[r];
            int s0 = out.steps(0);
            int n0 = tokens(id);
            for (int t = 0; t < n0; t++) {
              tok.put(r * s0 + t, id * 100 + t);
            }
            Collate.fill(tok, r * s0 + n0, s0 - n0, pad);
            out.lengths(0).put(r, n0);
            Collate.maskRow(out.mask(0), r * s0, n0, s0);
            int s1 = out.steps(1);
            int n1 = frames(id);
            for (int c = 0; c < 2; c++) {
              int at = (r * 2 + c) * s1;
              for (int t = 0; t < n1; t++) {
                fr.put(at + t, id * 1000 + c * 100 + t);
              }
              Collate.fill(fr, at + n1, s1 - n1, padF);
            }
            out.lengths(1).put(r, n1);
            Collate.maskRow(out.mask(1), r * s1, n1, s1);
            out.ints(2).put(r, id % 10);
          }
        })
        .build();
  }

  static BatchLayout layout(int rows) {
    return BatchLayout.of(
        List.of(DataDesc.of("tokens", rows, Shape.of(Shape.VARIABLE), DType.INT32, Role.DATA),
            DataDesc.of("frames", rows, Shape.of(2, Shape.VARIABLE), DType.FLOAT32, Role.DATA)),
        List.of(DataDesc.of("digit", rows, Shape.scalar(), DType.INT32, Role.LABEL)));
  }

  static Builder builder(int samples) {
    return new Builder(samples);
  }

  @Override
  protected BatchEngine<NamedBatch> engine() {
    return engine;
  }

  static final class Builder extends ProviderBuilder<Builder> {
    private final int samples;

    private Builder(int samples) {
      this.samples = samples;
    }

    Ragged build() {
      return new Ragged(this, dev.minibatch.runtime.internal.settings.Sampling.resolve(settings()));
    }
  }
}
