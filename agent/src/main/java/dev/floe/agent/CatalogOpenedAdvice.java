package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import net.bytebuddy.asm.Advice;

/**
 * After a catalog's {@code initialize(name, properties)}: recovery for floe's own catalog; for any
 * other, what floe needs to open an instance of its own on the same tables.
 */
final class CatalogOpenedAdvice {
    private CatalogOpenedAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
            @Advice.This Object catalog, @Advice.Argument(0) Object name, @Advice.Argument(1) Object properties) {
        FloeBridge.catalogOpened(catalog, name, properties);
    }
}
