package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import net.bytebuddy.asm.Advice;

/**
 * As a catalog's {@code close()} begins (before its connections go, so that floe's work on it that
 * fails from then on is known to have met a closed instance): floe's background work on a shared
 * catalog stops using that instance until the host initialises another, and the close waits a
 * bounded time for floe's task at hand on it to end.
 */
final class CatalogClosedAdvice {
    private CatalogClosedAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object catalog) {
        FloeBridge.catalogClosed(catalog);
    }
}
