package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import net.bytebuddy.asm.Advice;

/**
 * After a catalog hands out a table ({@code loadTable}, {@code registerTable}, {@code createTable}
 * of a catalog class): track the handle the host now holds, and which table of which catalog it is.
 */
final class LoadTableAdvice {
    private LoadTableAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object catalog, @Advice.Argument(0) Object identifier, @Advice.Return Object table) {
        FloeBridge.tableLoaded(catalog, identifier, table);
    }
}
