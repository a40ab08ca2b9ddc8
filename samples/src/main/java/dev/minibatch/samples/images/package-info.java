/**
 * The image sample: the bundled MNIST digits written out as PNG files in class folders, packed into
 * RecordIO files by {@link dev.minibatch.runtime.io.image.Im2Rec}, and a small convolutional
 * network trained on them through {@link dev.minibatch.runtime.io.image.ImageRecordProvider} with
 * augmentation (random crops from padded digits, small rotations).
 */
@NullMarked
package dev.minibatch.samples.images;

import org.jspecify.annotations.NullMarked;
