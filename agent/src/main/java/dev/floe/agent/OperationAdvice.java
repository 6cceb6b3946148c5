package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import net.bytebuddy.asm.Advice;

/**
 * Around {@code SnapshotProducer.commit()} (appends, overwrites, row deltas): the writer gate for
 * the whole operation, so an operation that waited through a swap applies itself to the swapped
 * table rather than failing its compare-and-swap and backing off.
 */
final class OperationAdvice {
    private OperationAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.FieldValue("ops") Object ops) {
        return FloeBridge.beforeOperation(ops);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.FieldValue("ops") Object ops, @Advice.Enter long entered) {
        FloeBridge.afterOperation(ops, entered);
    }
}
