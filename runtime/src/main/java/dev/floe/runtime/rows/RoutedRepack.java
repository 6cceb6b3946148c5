package dev.floe.runtime.rows;

import dev.floe.runtime.Prune;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * After rows of an earlier spec's files were routed to their partitions of the current spec: the
 * bounded fanout ({@link RollingParquetWriter#MAX_OPEN} files open) closes a partition's file when
 * others need one, so a partition may end with several small files. Those partitions' files are
 * read back and packed into one (or a few, by target) per partition, one partition at a time, and
 * the first files deleted. Rows of an earlier spec are rewritten this once more, when the spec
 * changed; memory stays one open file.
 */
public final class RoutedRepack {
    private RoutedRepack() {}

    public static List<DataFile> repack(List<DataFile> routed, RollingParquetWriter writer, Table target) {
        Map<StructLikeWrapper, List<DataFile>> byPartition = new LinkedHashMap<>();
        for (DataFile file : routed) {
            byPartition
                    .computeIfAbsent(
                            StructLikeWrapper.forType(target.spec().partitionType())
                                    .set(file.partition()),
                            p -> new ArrayList<>())
                    .add(file);
        }
        List<DataFile> packed = new ArrayList<>();
        TaskRows reader = TaskRows.current(target);
        for (List<DataFile> files : byPartition.values()) {
            if (files.size() < 2) {
                packed.addAll(files);
                continue;
            }
            List<CloseableIterable<Record>> parts = new ArrayList<>();
            files.forEach(file -> parts.add(reader.rows(file)));
            try (CloseableIterable<Record> rows = CloseableIterable.concat(parts)) {
                packed.addAll(writer.write(
                                rows, Prune.NONE, files.get(0).partition(), false, RollingParquetWriter.Placement.NONE)
                        .files());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            files.forEach(file -> target.io().deleteFile(file.location()));
        }
        return packed;
    }
}
