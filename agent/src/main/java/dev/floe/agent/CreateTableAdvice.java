package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import net.bytebuddy.asm.Advice;

/**
 * After {@code BaseMetastoreCatalog}'s table builder creates a table ({@code createTable} of every
 * catalog built on it): as {@link LoadTableAdvice}, the builder's catalog and identifier read from
 * its fields ({@link InstrumentationCheck} proves they are there).
 */
final class CreateTableAdvice {
    private CreateTableAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
            @Advice.FieldValue("this$0") Object catalog,
            @Advice.FieldValue("identifier") Object identifier,
            @Advice.Return Object table) {
        FloeBridge.tableLoaded(catalog, identifier, table);
    }
}
