package dev.floe.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The runtime's packages form layers (docs/DESIGN.md, "Packages"): a class uses only its own
 * package and those below it, and nothing outside the runtime uses the internal ones. A plain scan of
 * the sources: every {@code dev.floe.runtime.<package>.} a class names in its code (imports and
 * qualified names; comments and strings do not count).
 */
class PackageLayersTest {
    /** Each package's layer, bottom first; packages of one layer do not use each other. */
    static final Map<String, Integer> LAYER = Map.of(
            "", 0,
            "seam", 1,
            "rows", 2,
            "install", 3,
            "upkeep", 4,
            "deltas", 4,
            "history", 5,
            "rebuild", 6,
            "guard", 7,
            "rest", 7);

    static final List<String> INTERNAL = List.of("rows", "deltas", "install", "history");

    private static final Path RUNTIME = Path.of("src", "main", "java", "dev", "floe", "runtime");
    private static final Pattern NAMED = Pattern.compile("\\bdev\\.floe\\.runtime\\.(?:([a-z]\\w*)\\.)?[A-Z]");

    @Test
    void everyRuntimeClassUsesOnlyItsOwnLayerAndThoseBelow() {
        List<String> upward = new ArrayList<>();
        for (Path file : javaFiles(RUNTIME)) {
            String own = packageOf(RUNTIME.relativize(file.getParent()));
            assertThat(LAYER).as("layer of package '%s' (%s)", own, file).containsKey(own);
            for (String used : packagesNamed(file)) {
                assertThat(LAYER)
                        .as("layer of package '%s' named by %s", used, file)
                        .containsKey(used);
                if (!used.equals(own) && LAYER.get(used) >= LAYER.get(own)) {
                    upward.add(file + " (" + name(own) + ") uses " + name(used));
                }
            }
        }
        assertThat(upward).as("uses of a package in the same layer or above").isEmpty();
    }

    @Test
    void nothingOutsideTheRuntimeUsesItsInternalPackages() {
        List<String> uses = new ArrayList<>();
        for (String module : List.of("agent", "bench", "samples", "engines")) {
            for (Path file : javaFiles(Path.of("..", module))) {
                for (String used : packagesNamed(file)) {
                    if (INTERNAL.contains(used)) {
                        uses.add(file + " uses " + name(used));
                    }
                }
            }
        }
        assertThat(javaFiles(Path.of("..", "agent")))
                .as("the agent's sources are scanned")
                .isNotEmpty();
        assertThat(uses)
                .as("uses of the runtime's internal packages outside it")
                .isEmpty();
    }

    @Test
    void theScanSeesAnUpwardUseAndIgnoresComments() {
        String source = "package dev.floe.runtime.rows;\n"
                + "// dev.floe.runtime.guard.Guard in a comment\n"
                + "/** {@link dev.floe.runtime.rebuild.Compactor} */\n"
                + "import dev.floe.runtime.seam.FloeState;\n"
                + "class X { Object g = dev.floe.runtime.guard.Guard.class; String s = \"dev.floe.runtime.install.X\"; }";
        assertThat(packagesNamed(source)).containsExactlyInAnyOrder("seam", "guard");
    }

    private static String name(String pkg) {
        return pkg.isEmpty() ? "dev.floe.runtime" : "dev.floe.runtime." + pkg;
    }

    private static String packageOf(Path relative) {
        String p = relative.toString().replace(java.io.File.separatorChar, '.');
        return p.contains(".") ? p.substring(0, p.indexOf('.')) : p;
    }

    private static List<String> packagesNamed(Path file) {
        try {
            return packagesNamed(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> packagesNamed(String source) {
        String code = source.replaceAll("(?s)/\\*.*?\\*/", " ")
                .replaceAll("//[^\n]*", "")
                .replaceAll("\"(?:\\\\.|[^\"\\\\\n])*\"", "\"\"")
                .replaceAll("(?m)^package [^;]*;", "");
        List<String> found = new ArrayList<>();
        Matcher m = NAMED.matcher(code);
        while (m.find()) {
            String pkg = m.group(1) == null ? "" : m.group(1);
            if (!found.contains(pkg)) {
                found.add(pkg);
            }
        }
        return found;
    }

    private static List<Path> javaFiles(Path root) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.toString().contains(java.io.File.separator + "target" + java.io.File.separator))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
