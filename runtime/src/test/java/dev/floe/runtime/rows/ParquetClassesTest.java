package dev.floe.runtime.rows;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The runtime links against the host's Iceberg, and the Iceberg runtimes engines ship
 * (iceberg-flink-runtime, iceberg-spark-runtime) relocate Parquet inside them: a runtime class that
 * names a Parquet type (in a descriptor, a method reference, a field) does not link there, and the
 * rebuild fails with a NoSuchMethodError (FlinkFailoverIT saw it). No runtime class may name one.
 */
class ParquetClassesTest {
    @Test
    void noRuntimeClassNamesAParquetType() throws IOException {
        Path classes = Path.of("target", "classes");
        List<String> naming;
        try (Stream<Path> files = Files.walk(classes)) {
            naming = files.filter(f -> f.toString().endsWith(".class"))
                    .filter(ParquetClassesTest::namesParquet)
                    .map(f -> classes.relativize(f).toString())
                    .collect(Collectors.toList());
        }
        assertThat(classes.resolve("dev/floe/runtime/rows/GenericParquetWriters.class"))
                .exists();
        assertThat(naming)
                .as("runtime classes whose constant pool names org/apache/parquet")
                .isEmpty();
    }

    private static boolean namesParquet(Path classFile) {
        try {
            // class names in a constant pool are UTF-8 entries with slashes
            return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1)
                    .contains("org/apache/parquet");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
