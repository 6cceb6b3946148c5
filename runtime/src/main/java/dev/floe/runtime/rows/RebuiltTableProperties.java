package dev.floe.runtime.rows;

import dev.floe.runtime.RebuildSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.TableProperties;

/**
 * The table properties a rebuild sets on the table it writes, on top of the live table's own:
 *
 * <ul>
 *   <li>ZSTD Parquet at the configured level, so files the host writes later match the rebuilt ones;
 *   <li>a short metadata log: {@code write.metadata.previous-versions-max} = {@link
 *       RebuildSettings#metadataVersions()}, so that {@link MetadataHistoryTrim} may delete the
 *       metadata files the log forgets. A table that sets the property itself keeps its own value,
 *       and {@code metadataVersions = 0} leaves every table's.
 * </ul>
 */
public final class RebuiltTableProperties {
    private RebuiltTableProperties() {}

    public static Map<String, String> of(RebuildSettings settings, Map<String, String> live) {
        return of(settings, live, false);
    }

    /**
     * @param keepTableSettings in place, in a catalog other engines share: a codec or level the table
     *     sets itself stays (the rebuilt files are ZSTD either way)
     */
    public static Map<String, String> of(
            RebuildSettings settings, Map<String, String> live, boolean keepTableSettings) {
        Map<String, String> props = new LinkedHashMap<>();
        writeProperties(settings).forEach((key, value) -> {
            if (!keepTableSettings || !live.containsKey(key)) {
                props.put(key, value);
            }
        });
        if (settings.metadataVersions() > 0 && !live.containsKey(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX)) {
            props.put(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, Integer.toString(settings.metadataVersions()));
        }
        return props;
    }

    /** What the rebuild's own Parquet writer is configured with. */
    static Map<String, String> writeProperties(RebuildSettings settings) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put(TableProperties.PARQUET_COMPRESSION, "zstd");
        props.put(TableProperties.PARQUET_COMPRESSION_LEVEL, Integer.toString(settings.zstdLevel()));
        return props;
    }
}
