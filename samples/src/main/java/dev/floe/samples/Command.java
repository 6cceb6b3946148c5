package dev.floe.samples;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The demo's and the benchmarks' command lines: flags, options with a value, other words; and how
 * they end: the exit code, and one line on what went wrong.
 */
public final class Command {
    /** A command's body: its exit code. */
    public interface Body {
        int run(String[] args) throws Exception;
    }

    private Command() {}

    /**
     * Runs {@code body} and exits with its code; with 2 and {@code <name>: <message> (--help for
     * usage)} when it throws {@link IllegalArgumentException} (bad arguments), with 1 and {@code
     * <name>: error: <what>} when it throws anything else.
     */
    public static void exit(String name, String[] args, Body body) {
        int status;
        try {
            status = body.run(args);
        } catch (IllegalArgumentException e) {
            System.out.println(name + ": " + e.getMessage() + " (--help for usage)");
            status = 2;
        } catch (Exception e) {
            System.out.println(name + ": error: " + Ingest.describe(e));
            status = 1;
        }
        System.exit(status);
    }

    /**
     * {@code args} as {@code flags} (and {@code --help}/{@code -h}), {@code options} each followed by
     * its value, and other words; an unknown word that starts with '-' is a bad argument.
     */
    public static Line parse(String[] args, Set<String> flags, Set<String> options) {
        Line line = new Line();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                line.flags.add("--help");
            } else if (flags.contains(arg)) {
                line.flags.add(arg);
            } else if (options.contains(arg)) {
                if (++i >= args.length) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                line.values.put(arg, args[i]);
            } else if (arg.startsWith("-")) {
                throw new IllegalArgumentException("unknown option " + arg);
            } else {
                line.words.add(arg);
            }
        }
        return line;
    }

    /** A parsed command line. */
    public static final class Line {
        private final Set<String> flags = new HashSet<>();
        private final Map<String, String> values = new HashMap<>();
        private final List<String> words = new ArrayList<>();

        public boolean help() {
            return flags.contains("--help");
        }

        public boolean has(String flag) {
            return flags.contains(flag);
        }

        /** The value of {@code option} (the last one given), or null. */
        public String value(String option) {
            return values.get(option);
        }

        /** The value of {@code option} as a path, or null. */
        public Path path(String option) {
            String value = values.get(option);
            return value == null ? null : Paths.get(value);
        }

        /** The words that are neither flags nor options nor their values, in order. */
        public List<String> words() {
            return List.copyOf(words);
        }
    }
}
