package dev.minibatch.kotlin

import dev.minibatch.apicheck.InternalUses
import dev.minibatch.apicheck.PublicApi
import java.nio.file.Path
import org.junit.jupiter.api.Test

/**
 * The public API of minibatch-kotlin is what `kotlin/public-api.txt` lists, read by reflection from
 * the compiled classes as for the Java modules: Kotlin's extension functions are the static methods
 * of their file classes (`KotlinReadersKt`, `KotlinProvidersKt`), with the receiver first.
 */
class PublicApiTest {
    @Test
    fun theCompiledPublicApiIsTheListedOne() {
        PublicApi.check("minibatch-kotlin", Path.of("target", "classes"), Path.of("public-api.txt"))
    }

    @Test
    fun itUsesOnlyTheListedRuntimeInternals() {
        InternalUses.check("minibatch-kotlin", Path.of("target", "classes"), Path.of("internal-uses.txt"))
    }
}
