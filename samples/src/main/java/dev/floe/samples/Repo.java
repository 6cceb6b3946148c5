package dev.floe.samples;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/** The floe repository the demo and the benchmarks run from, and a clean-up they share. */
public final class Repo {
    private Repo() {}

    /**
     * The repository: three levels above the jar ({@code <module>/target/x.jar}) or classes
     * directory {@code code} came from, else the nearest folder above the working directory that
     * holds {@code samples/pom.xml}, else the working directory.
     */
    public static Path locate(Class<?> code) {
        try {
            Path location = Paths.get(
                    code.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path candidate =
                    location.getParent() == null ? null : location.getParent().getParent();
            candidate = candidate == null ? null : candidate.getParent();
            if (candidate != null && isRepo(candidate)) {
                return candidate;
            }
        } catch (URISyntaxException | RuntimeException e) {
            // fall back to the working directory
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (isRepo(dir)) {
                return dir;
            }
        }
        return Paths.get("").toAbsolutePath();
    }

    private static boolean isRepo(Path dir) {
        return Files.isRegularFile(dir.resolve("samples/pom.xml"));
    }

    /** Deletes {@code root} and everything below it; nothing if it does not exist. */
    public static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
