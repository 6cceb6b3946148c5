package dev.floe.agent;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Finds the host's Iceberg without loading any of its classes, and says whether floe supports its
 * version. floe is built against Iceberg 1.10.1 and run on 1.9, 1.10, 1.11 and 1.12 (the
 * agent's IcebergVersionMatrixIT).
 */
public final class IcebergSupport {
    static final String COMMIT_CLASS = "org/apache/iceberg/BaseMetastoreTableOperations.class";
    static final int MIN_MINOR = 9;
    static final int MAX_MINOR = 12;

    private final boolean present;
    private final String version;

    private IcebergSupport(boolean present, String version) {
        this.present = present;
        this.version = version;
    }

    public static IcebergSupport detect(ClassLoader loader) {
        if (loader.getResource(COMMIT_CLASS) == null) {
            return new IcebergSupport(false, null);
        }
        String version = null;
        try (InputStream in = loader.getResourceAsStream("iceberg-build.properties")) {
            if (in != null) {
                Properties build = new Properties();
                build.load(in);
                version = build.getProperty("git.build.version");
            }
        } catch (IOException e) {
            // unknown version: treated as unsupported below
        }
        return new IcebergSupport(true, version);
    }

    public boolean present() {
        return present;
    }

    public String version() {
        return version == null ? "unknown" : version;
    }

    /** Null when supported, else why not. */
    public String unsupportedReason() {
        if (version == null) {
            return "its version cannot be read (no iceberg-build.properties)";
        }
        String[] parts = version.split("[.-]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = Integer.parseInt(parts[1]);
            if (major == 1 && minor >= MIN_MINOR && minor <= MAX_MINOR) {
                return null;
            }
        } catch (RuntimeException e) {
            return "its version '" + version + "' cannot be parsed";
        }
        return "floe supports Iceberg 1." + MIN_MINOR + " to 1." + MAX_MINOR + " and this host has " + version;
    }
}
