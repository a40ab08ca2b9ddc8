/**
 * Images: {@link dev.minibatch.runtime.io.image.ImageRecordProvider} (MXNet's {@code
 * ImageRecordIter} over RecordIO files or image folders, decoded and augmented by OpenCV on reader
 * threads straight into the batch buffers) and {@link dev.minibatch.runtime.io.image.Im2Rec} (pack
 * images into {@code .rec} and {@code .idx} files); {@link dev.minibatch.runtime.io.image.ImageDecoder}, the
 * one decode-and-augment step both image providers and shard sets' image columns use, and {@link
 * dev.minibatch.runtime.io.image.EncodedImages}, a folder's or record file's images undecoded. OpenCV comes from {@code org.bytedeco:opencv} on
 * ND4J's JavaCPP version; the application adds its natives for the platform, as it adds ND4J's
 * backend (docs/images.md).
 */
@NullMarked
package dev.minibatch.runtime.io.image;

import org.jspecify.annotations.NullMarked;
