package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import net.bytebuddy.asm.Advice;

/** After {@code MapDbCatalog.initialize(name, properties)}: recovery for that catalog. */
final class CatalogOpenedAdvice {
    private CatalogOpenedAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object catalog) {
        FloeBridge.catalogOpened(catalog);
    }
}
