package dev.floe.samples;

import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A host that keeps Iceberg out of the system class path, as Spring Boot, Kafka Connect and Flink
 * do: it runs the sample {@link Ingest} in a {@code URLClassLoader} of its own whose parent is the
 * platform class loader, so Iceberg, the floe catalog and the ingest itself are defined by that
 * loader only. Several runs side by side each get their own loader, with their own copy of
 * everything.
 *
 * <pre>
 * java -cp samples/target/classes dev.floe.samples.IsolatedLauncher \
 *     &lt;class path&gt; &lt;Ingest arguments...&gt; [--also &lt;class path&gt; &lt;Ingest arguments...&gt;]...
 * </pre>
 *
 * Put only this launcher on the system class path (the {@code classes} folder, not the samples jar,
 * whose manifest would bring Iceberg along; with {@code -Dlauncher.parent=system}, a folder of the
 * {@code IsolatedLauncher} classes alone, or the ingest would come from the system loader). Each run's RESULT line is printed prefixed with {@code
 * run <n> }; the exit code is the worst of the runs'. {@code -Dlauncher.parent=system} puts the
 * system class loader (where the JVM puts an agent jar) above the runs' loaders instead of the
 * platform loader. This class uses nothing but the JDK.
 */
public final class IsolatedLauncher {
    static final String USAGE =
            "usage: java -cp samples/target/classes dev.floe.samples.IsolatedLauncher <class path> <Ingest arguments...>"
                    + " [--also <class path> <Ingest arguments...>]...";

    private IsolatedLauncher() {}

    public static void main(String[] args) throws Exception {
        List<List<String>> runs = split(args);
        if (runs.isEmpty() || runs.stream().anyMatch(r -> r.size() < 2)) {
            System.err.println(USAGE);
            System.exit(2);
        }
        System.out.println("system class loader sees Iceberg: "
                + (ClassLoader.getSystemClassLoader().getResource("org/apache/iceberg/Table.class") != null));
        List<Thread> threads = new ArrayList<>();
        int[] status = new int[runs.size()];
        for (int i = 0; i < runs.size(); i++) {
            int n = i + 1;
            List<String> run = runs.get(i);
            URLClassLoader loader = new URLClassLoader("ingest-" + n, urls(run.get(0)), parent());
            String[] ingestArgs = run.subList(1, run.size()).toArray(new String[0]);
            Thread thread = new Thread(() -> status[n - 1] = runIn(loader, n, ingestArgs), "ingest-run-" + n);
            thread.setContextClassLoader(loader);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        int worst = 0;
        for (int i = 0; i < status.length; i++) {
            System.out.println("run " + (i + 1) + " exit " + status[i]);
            worst = Math.max(worst, status[i]);
        }
        System.out.flush();
        System.exit(worst);
    }

    /**
     * The runs' parent: the platform class loader (default), or with {@code -Dlauncher.parent=system}
     * the system class loader, asked first as Spring Boot's launcher does.
     */
    private static ClassLoader parent() {
        String parent = System.getProperty("launcher.parent", "platform");
        switch (parent) {
            case "platform":
                return ClassLoader.getPlatformClassLoader();
            case "system":
                return ClassLoader.getSystemClassLoader();
            default:
                throw new IllegalArgumentException("-Dlauncher.parent must be platform or system, not " + parent);
        }
    }

    private static int runIn(ClassLoader loader, int n, String[] args) {
        try (PrintStream out = new PrefixedOut("run " + n + " ")) {
            Class<?> ingest = Class.forName("dev.floe.samples.Ingest", true, loader);
            if (ingest.getClassLoader() != loader) {
                throw new IllegalStateException("Ingest was not defined by the run's own class loader");
            }
            Method run = ingest.getMethod("run", String[].class, PrintStream.class);
            return (Integer) run.invoke(null, args, out);
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("run " + n + " failed: " + (e.getCause() != null ? e.getCause() : e));
            return 1;
        }
    }

    private static List<List<String>> split(String[] args) {
        List<List<String>> runs = new ArrayList<>();
        List<String> current = new ArrayList<>();
        for (String arg : args) {
            if (arg.equals("--also")) {
                runs.add(current);
                current = new ArrayList<>();
            } else {
                current.add(arg);
            }
        }
        if (!current.isEmpty() || !runs.isEmpty()) {
            runs.add(current);
        }
        return runs;
    }

    private static URL[] urls(String classPath) {
        return Arrays.stream(classPath.split(File.pathSeparator))
                .filter(s -> !s.isBlank())
                .map(s -> {
                    try {
                        return Path.of(s).toAbsolutePath().toUri().toURL();
                    } catch (MalformedURLException e) {
                        throw new IllegalArgumentException("bad class path entry " + s, e);
                    }
                })
                .toArray(URL[]::new);
    }

    /** Standard output with a prefix on each line. */
    private static final class PrefixedOut extends PrintStream {
        private final String prefix;

        PrefixedOut(String prefix) {
            super(System.out, true);
            this.prefix = prefix;
        }

        @Override
        public void println(String line) {
            synchronized (System.out) {
                System.out.println(prefix + line);
            }
        }

        @Override
        public void close() {
            flush(); // System.out stays open
        }
    }
}
