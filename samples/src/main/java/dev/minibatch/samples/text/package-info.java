/**
 * A generator-based text provider in the spirit of MXNet.jl's char-LSTM example: text becomes
 * fixed-length sequences of character ids, each labelled by the same sequence shifted one character
 * ahead, produced by a generator reader and batched by the generated provider; and the char-LSTM
 * itself on variable-length lines ({@link dev.minibatch.samples.text.CharLine}, {@link
 * dev.minibatch.samples.text.TrainCharLstm}): one line per sample, padded, masked and bucketed; and
 * a small transformer trained on packed rows of a token shard set ({@link
 * dev.minibatch.samples.text.TrainPackedLm}), attending within a segment, its loss weighted by the
 * loss mask.
 */
@NullMarked
package dev.minibatch.samples.text;

import org.jspecify.annotations.NullMarked;
