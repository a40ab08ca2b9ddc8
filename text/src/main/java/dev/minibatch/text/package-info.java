/**
 * Text into shard sets: {@link dev.minibatch.text.Documents} (text files, lines, JSON lines, any
 * {@code Iterable<String>}), a {@link dev.minibatch.text.Tokenizer} (the bundled byte-pair
 * tokenisers of {@link dev.minibatch.text.Tokenizers}), and {@link dev.minibatch.text.TokenShards},
 * which tokenises documents on reader threads and writes one sample per document: its token ids
 * ({@code tokens}, INT32, variable length) and its index in the source ({@code doc}, INT64).
 * {@link dev.minibatch.text.Packing} packs documents of ids into rows of a context length
 * (concatenated or best fit) with segment ids, position ids, a loss mask, boundaries and shifted
 * labels, and deals them to trainers in {@link dev.minibatch.text.PackedBatches}, resumable mid-epoch
 * under another trainer count; {@link dev.minibatch.text.TokenBudget} groups documents into batches of at most {@code B}
 * tokens, padding included. See {@code docs/text.md}.
 */
@NullMarked
package dev.minibatch.text;

import org.jspecify.annotations.NullMarked;
