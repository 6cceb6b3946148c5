package dev.floe.samples;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.exceptions.AlreadyExistsException;

/**
 * What the sample hosts ({@link Ingest}, {@link Upsert}) do alike around their commits: the command
 * line (help, bad arguments, failures, the RESULT line and the exit), the table's namespace and the
 * progress lines.
 */
final class Host {
    private Host() {}

    /** Ends the JVM with {@code status}, after flushing what the program printed. */
    static void exit(int status) {
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }

    /** True when {@code args} ask for help: {@code usage} is printed to {@code out}. */
    static boolean helpAsked(String[] args, String usage, PrintStream out) {
        if (args.length >= 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            out.println(usage);
            return true;
        }
        return false;
    }

    /** Says the bad argument on standard error; returns exit status 2. */
    static int badArguments(String program, IllegalArgumentException e) {
        System.err.println(program + ": error: " + e.getMessage() + " (--help for usage)");
        return 2;
    }

    /** Says why the run failed on standard error (its stack trace too with -Dingest.stacktrace=true); returns 1. */
    static int failed(String program, Throwable t) {
        if (Boolean.getBoolean("ingest.stacktrace")) {
            t.printStackTrace();
        }
        System.err.println(program + ": error: " + Ingest.describe(t));
        return 1;
    }

    /** Prints the RESULT line of {@code result} to {@code out}; returns 0, or 1 after saying {@code problem}. */
    static int result(String program, Map<String, String> result, String problem, PrintStream out) {
        out.println(ResultLine.format(result));
        out.flush();
        if (problem != null) {
            System.err.println(program + ": error: " + problem);
            return 1;
        }
        return 0;
    }

    /** Creates {@code namespace} where the catalog has namespaces and lacks it (one created meanwhile will do). */
    static void createNamespace(Catalog catalog, Namespace namespace) {
        if (catalog instanceof SupportsNamespaces namespaces && !namespace.isEmpty()) {
            if (!namespaces.namespaceExists(namespace)) {
                try {
                    namespaces.createNamespace(namespace);
                } catch (AlreadyExistsException raced) {
                    // created by someone else meanwhile
                }
            }
        }
    }

    /** The line a host prints after some of its commits, {@code done} of {@code commits}. */
    static void progress(int done, int commits, long startNanos, long latencyNanos) {
        System.out.printf(
                Locale.ROOT,
                "progress commits=%d/%d elapsedMs=%d lastCommitMs=%.3f%n",
                done,
                commits,
                (System.nanoTime() - startNanos) / 1_000_000,
                latencyNanos / 1e6);
    }
}
