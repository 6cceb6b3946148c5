package dev.floe.agent.boot;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Collections;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Loads floe's own classes from the hidden layer of the agent jar ({@value #LAYER} entries, which no
 * other class loader can see), on top of a parent that provides Iceberg, Parquet, Hadoop and SLF4J.
 *
 * <ul>
 *   <li>floe's runtime and agent internals and its relocated libraries ({@code dev.floe.runtime.},
 *       {@code dev.floe.agent.}, {@code dev.floe.shaded.}) come from the layer first, so each loader
 *       has its own copy, linked against its parent's Iceberg;
 *   <li>everything else comes from the parent first: Iceberg and the rest, and also {@code
 *       dev.floe.catalog.}, {@code org.mapdb.} and {@code dev.floe.runtime.Prune}, so that the guard
 *       works on the very {@code MapDbCatalog} class the host uses and with the host's prune class. Only when the parent has none does the layer's copy serve
 *       (the operator CLI on a class path without the catalog);
 *   <li>{@code dev.floe.bootstrap.} (the bridge) and {@code dev.floe.agent.boot.} (this class) always
 *       come from the parent: there is one of each per JVM.
 * </ul>
 */
public final class IsolatingLoader extends ClassLoader {
    /**
     * The one runtime type a host implements (a prune class): from the parent when it has one, so
     * that the host's prune and floe's runtime agree on it.
     */
    static final String PRUNE = "dev.floe.runtime.Prune";

    /** Where the agent jar keeps every class but the boot ones. */
    public static final String LAYER = "floe/";

    static {
        registerAsParallelCapable();
    }

    private final JarFile jar;
    private final String jarUrl;
    private final ProtectionDomain domain;

    public IsolatingLoader(String name, Path agentJar, ClassLoader parent) {
        super(name, parent);
        try {
            this.jar = new JarFile(agentJar.toFile());
            URL location = agentJar.toUri().toURL();
            this.jarUrl = "jar:" + location + "!/";
            this.domain = new ProtectionDomain(new CodeSource(location, (Certificate[]) null), null, this, null);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open the floe agent jar " + agentJar, e);
        }
    }

    private static boolean fromLayerFirst(String className) {
        return (className.startsWith("dev.floe.runtime.") && !className.equals(PRUNE)
                        || className.startsWith("dev.floe.agent.")
                        || className.startsWith("dev.floe.shaded."))
                && !className.startsWith("dev.floe.agent.boot.");
    }

    private static boolean fromParentOnly(String className) {
        return className.startsWith("dev.floe.bootstrap.") || className.startsWith("dev.floe.agent.boot.");
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                if (fromLayerFirst(name)) {
                    loaded = defineFromLayer(name);
                    if (loaded == null) {
                        loaded = getParent().loadClass(name);
                    }
                } else {
                    try {
                        loaded = getParent().loadClass(name);
                    } catch (ClassNotFoundException notInParent) {
                        loaded = fromParentOnly(name) ? null : defineFromLayer(name);
                        if (loaded == null) {
                            throw notInParent;
                        }
                    }
                }
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        Class<?> defined = defineFromLayer(name);
        if (defined == null) {
            throw new ClassNotFoundException(name);
        }
        return defined;
    }

    private Class<?> defineFromLayer(String name) {
        JarEntry entry = jar.getJarEntry(LAYER + name.replace('.', '/') + ".class");
        if (entry == null) {
            return null;
        }
        byte[] bytes;
        try (InputStream in = jar.getInputStream(entry)) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + entry.getName() + " from the floe agent jar", e);
        }
        definePackageOf(name);
        return defineClass(name, bytes, 0, bytes.length, domain);
    }

    private void definePackageOf(String className) {
        int dot = className.lastIndexOf('.');
        if (dot > 0) {
            String pkg = className.substring(0, dot);
            if (getDefinedPackage(pkg) == null) {
                try {
                    definePackage(pkg, null, null, null, null, null, null, null);
                } catch (IllegalArgumentException definedMeanwhile) {
                    // another thread defined it
                }
            }
        }
    }

    /** Resources of the hidden layer: parent first, as for classes from the parent. */
    @Override
    protected URL findResource(String name) {
        if (jar.getJarEntry(LAYER + name) == null) {
            return null;
        }
        try {
            return new URL(jarUrl + LAYER + name);
        } catch (MalformedURLException e) {
            return null;
        }
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        URL url = findResource(name);
        return url == null ? Collections.emptyEnumeration() : Collections.enumeration(Collections.singletonList(url));
    }

    /**
     * Resources of floe's own classes come from the layer (Byte Buddy reads advice classes this way);
     * any other from the parent first.
     */
    @Override
    public URL getResource(String name) {
        if (name.endsWith(".class")
                && fromLayerFirst(name.substring(0, name.length() - 6).replace('/', '.'))) {
            URL own = findResource(name);
            if (own != null) {
                return own;
            }
        }
        return super.getResource(name);
    }
}
