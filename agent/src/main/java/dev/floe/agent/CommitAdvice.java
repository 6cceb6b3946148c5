package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import net.bytebuddy.asm.Advice;

/**
 * Around {@code commit(base, metadata)} of a table's operations ({@code BaseMetastoreTableOperations}
 * and its subclasses, {@code HadoopTableOperations}, {@code RESTTableOperations}): the single-writer
 * gate.
 */
final class CommitAdvice {
    private CommitAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.This Object ops) {
        return FloeBridge.beforeCommit(ops);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(
            @Advice.This Object ops,
            @Advice.Argument(0) Object base,
            @Advice.Argument(1) Object metadata,
            @Advice.Enter long entered,
            @Advice.Thrown Throwable thrown) {
        FloeBridge.afterCommit(ops, base, metadata, entered, thrown);
    }
}
