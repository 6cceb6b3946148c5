package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import net.bytebuddy.asm.Advice;

/**
 * After a MapDbCatalog hands out a table ({@code loadTable}, {@code registerTable}, a table
 * builder's {@code create}): track the handle the host now holds.
 */
final class LoadTableAdvice {
    private LoadTableAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Return Object table) {
        FloeBridge.tableLoaded(table);
    }
}
