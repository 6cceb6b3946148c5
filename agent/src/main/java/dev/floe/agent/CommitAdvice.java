package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import net.bytebuddy.asm.Advice;

/** Around {@code BaseMetastoreTableOperations.commit(base, metadata)}: the single-writer gate. */
final class CommitAdvice {
    private CommitAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.This Object ops) {
        return FloeBridge.beforeCommit(ops);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(
            @Advice.This Object ops,
            @Advice.Argument(1) Object metadata,
            @Advice.Enter long entered,
            @Advice.Thrown Throwable thrown) {
        FloeBridge.afterCommit(ops, metadata, entered, thrown);
    }
}
