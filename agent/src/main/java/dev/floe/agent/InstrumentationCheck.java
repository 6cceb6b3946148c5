package dev.floe.agent;

import java.lang.reflect.Field;

/**
 * What floe's advice assumes of the host's Iceberg beyond method names, checked once per class
 * loader before its guard starts, as BlockHound checks its own instrumentation at install: {@link
 * OperationAdvice} reads the private field {@code ops} of {@code SnapshotProducer}, {@link
 * CreateTableAdvice} the fields {@code this$0} and {@code identifier} of the table builder. A mismatch is
 * one message and floe steps aside for that loader, never a {@code NoSuchFieldError} in the host.
 */
final class InstrumentationCheck {
    static final String PRODUCER = "org.apache.iceberg.SnapshotProducer";
    static final String OPS_FIELD = "ops";
    static final String OPERATIONS = "org.apache.iceberg.TableOperations";

    private InstrumentationCheck() {}

    /** What does not match in {@code loader}'s Iceberg, or null when everything does. */
    static String mismatch(ClassLoader loader) {
        Class<?> producer;
        Class<?> operations;
        try {
            producer = Class.forName(PRODUCER, false, loader);
            operations = Class.forName(OPERATIONS, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return "its Iceberg has no " + PRODUCER + " or " + OPERATIONS + " (" + e + ")";
        }
        Field field;
        try {
            field = producer.getDeclaredField(OPS_FIELD);
        } catch (NoSuchFieldException e) {
            return PRODUCER + " has no field '" + OPS_FIELD + "' (floe's advice on SnapshotProducer.commit reads it)";
        }
        if (!operations.isAssignableFrom(field.getType())) {
            return PRODUCER + "." + OPS_FIELD + " is a " + field.getType().getName() + ", not a " + OPERATIONS
                    + " (floe's advice on SnapshotProducer.commit reads it)";
        }
        String builder = builderMismatch(loader);
        return builder != null ? builder : catalogAdapterMismatch(loader);
    }

    /** {@link CreateTableAdvice} reads the table builder's catalog and identifier from its fields. */
    private static String builderMismatch(ClassLoader loader) {
        try {
            Class<?> builder = Class.forName(FloeAgent.BUILDER, false, loader);
            for (String field : new String[] {"this$0", "identifier"}) {
                builder.getDeclaredField(field);
            }
            return null;
        } catch (ClassNotFoundException | NoSuchFieldException | LinkageError e) {
            return FloeAgent.BUILDER + " is not as floe's advice on its create() reads it (" + e + ")";
        }
    }

    /**
     * The host's floe-catalog-adapter, when it has one, must have what this agent's runtime calls
     * (without one, the agent's own copy serves floe's state file).
     */
    private static String catalogAdapterMismatch(ClassLoader loader) {
        try {
            Class.forName("dev.floe.catalog.MapDbCatalog", false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        String[][] needed = {
            {"dev.floe.catalog.MapDbCatalog", "openAnother"}, {"dev.floe.catalog.MapDbTableOperations", "pointer"}
        };
        for (String[] method : needed) {
            try {
                Class.forName(method[0], false, loader).getMethod(method[1]);
            } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
                return "its floe-catalog-adapter is not the one this agent was built with (" + method[0] + "."
                        + method[1] + "() is missing): put floe-catalog-adapter " + FloeAgent.VERSION
                        + " next to its Iceberg";
            }
        }
        return null;
    }
}
