package dev.floe.agent.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which classes come from the agent jar's hidden layer, and which from the parent. */
class IsolatingLoaderTest {
    static final String OWN = "dev.floe.agent.ConfigException";
    static final String CATALOG = "dev.floe.catalog.CatalogKeys";
    static final String BRIDGE = "dev.floe.bootstrap.FloeBridge";

    @TempDir
    Path dir;

    Path jar;

    /** An agent jar whose layer holds copies of classes this test's class path has too. */
    @BeforeEach
    void writeJar() throws IOException {
        jar = dir.resolve("agent.jar");
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file)) {
            for (String name : new String[] {OWN, CATALOG, BRIDGE}) {
                String path = name.replace('.', '/') + ".class";
                out.putNextEntry(new JarEntry(IsolatingLoader.LAYER + path));
                try (InputStream in = getClass().getClassLoader().getResourceAsStream(path)) {
                    in.transferTo(out);
                }
                out.closeEntry();
            }
            out.putNextEntry(new JarEntry(IsolatingLoader.LAYER + "floe-note.txt"));
            out.write("hidden".getBytes());
            out.closeEntry();
        }
    }

    @Test
    void floesOwnClassesComeFromTheLayerEvenWhenTheParentHasThem() throws Exception {
        IsolatingLoader loader = new IsolatingLoader("t", jar, getClass().getClassLoader());

        Class<?> own = loader.loadClass(OWN);

        assertThat(own.getClassLoader()).isSameAs(loader);
        assertThat(own).isNotSameAs(Class.forName(OWN));
        assertThat(own.getProtectionDomain().getCodeSource().getLocation())
                .isEqualTo(jar.toUri().toURL());
        assertThat(loader.loadClass(OWN)).isSameAs(own);
    }

    @Test
    void icebergAndTheHostsCatalogComeFromTheParent() throws Exception {
        ClassLoader parent = getClass().getClassLoader();
        IsolatingLoader loader = new IsolatingLoader("t", jar, parent);

        assertThat(loader.loadClass("org.apache.iceberg.Table")).isSameAs(Class.forName("org.apache.iceberg.Table"));
        assertThat(loader.loadClass(CATALOG)).isSameAs(Class.forName(CATALOG));
        assertThat(loader.loadClass("java.lang.String")).isSameAs(String.class);
    }

    @Test
    void theLayersCatalogServesOnlyWhenTheParentHasNone() throws Exception {
        IsolatingLoader loader = new IsolatingLoader("t", jar, ClassLoader.getPlatformClassLoader());

        assertThat(loader.loadClass(CATALOG).getClassLoader()).isSameAs(loader);
        assertThatThrownBy(() -> loader.loadClass("org.apache.iceberg.Table"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void theBridgeIsNeverDefinedHere() {
        IsolatingLoader loader = new IsolatingLoader("t", jar, ClassLoader.getPlatformClassLoader());

        assertThatThrownBy(() -> loader.loadClass(BRIDGE)).isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void resourcesOfTheLayerAreFoundThroughIt() throws Exception {
        IsolatingLoader loader = new IsolatingLoader("t", jar, ClassLoader.getPlatformClassLoader());

        assertThat(loader.getResource(OWN.replace('.', '/') + ".class"))
                .asString()
                .endsWith("!/floe/dev/floe/agent/ConfigException.class");
        try (InputStream in = loader.getResourceAsStream("floe-note.txt")) {
            assertThat(new String(in.readAllBytes())).isEqualTo("hidden");
        }
        assertThat(ClassLoader.getPlatformClassLoader().getResource("floe-note.txt"))
                .isNull();
    }
}
