package dev.minibatch.kotlin

/**
 * Marks the receivers of the provider DSL that the minibatch processor generates for a Kotlin
 * sample class (`sensorProvider { samples(list); batchSize = 4 }`, docs/kotlin.md). As a
 * [DslMarker], it keeps the blocks apart: inside a nested block such as `padding { }`, the
 * settings of the enclosing block are not in scope without an explicit `this@sensorProvider`, so a
 * setting cannot land on the wrong receiver.
 *
 * The processor generates the DSL only when this annotation is on the compile class path (the
 * application depends on `minibatch-kotlin`); without it, a Kotlin sample gets the Java builder
 * alone.
 */
@DslMarker
@Target(AnnotationTarget.CLASS)
@Retention(AnnotationRetention.BINARY)
public annotation class MinibatchDsl
