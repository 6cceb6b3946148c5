package dev.floe.runtime.deltas;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The data and delete files one snapshot added and removed. Iceberg 1.11 brought {@code
 * SnapshotChanges} for this, which reads each manifest with the table's partition specs, and
 * deprecated {@code Snapshot.addedDataFiles(io)} and its kin, which from 1.11 log a WARN for every
 * manifest they read; 1.9 and 1.10 have only those. floe links against whichever Iceberg the host
 * has, so it finds {@code SnapshotChanges} there once and uses it when it is there.
 */
final class SnapshotFileChanges {
    private static final Handles HANDLES = Handles.find();

    final Iterable<DataFile> addedData;
    final Iterable<DataFile> removedData;
    final Iterable<DeleteFile> addedDeletes;
    final Iterable<DeleteFile> removedDeletes;

    private SnapshotFileChanges(
            Iterable<DataFile> addedData,
            Iterable<DataFile> removedData,
            Iterable<DeleteFile> addedDeletes,
            Iterable<DeleteFile> removedDeletes) {
        this.addedData = addedData;
        this.removedData = removedData;
        this.addedDeletes = addedDeletes;
        this.removedDeletes = removedDeletes;
    }

    static SnapshotFileChanges of(Table table, Snapshot snapshot) {
        if (HANDLES == null) {
            return new SnapshotFileChanges(
                    snapshot.addedDataFiles(table.io()),
                    snapshot.removedDataFiles(table.io()),
                    snapshot.addedDeleteFiles(table.io()),
                    snapshot.removedDeleteFiles(table.io()));
        }
        try {
            Object changes = HANDLES.build.invoke(HANDLES.snapshot.invoke(HANDLES.builderFor.invoke(table), snapshot));
            return new SnapshotFileChanges(
                    files(HANDLES.addedData, changes),
                    files(HANDLES.removedData, changes),
                    files(HANDLES.addedDeletes, changes),
                    files(HANDLES.removedDeletes, changes));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("Cannot read the changes of snapshot " + snapshot.snapshotId(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <F> Iterable<F> files(MethodHandle method, Object changes) throws Throwable {
        return (Iterable<F>) method.invoke(changes);
    }

    /** SnapshotChanges' methods in the host's Iceberg, or null when it has none (before 1.11). */
    private record Handles(
            MethodHandle builderFor,
            MethodHandle snapshot,
            MethodHandle build,
            MethodHandle addedData,
            MethodHandle removedData,
            MethodHandle addedDeletes,
            MethodHandle removedDeletes) {
        static Handles find() {
            try {
                ClassLoader iceberg = Snapshot.class.getClassLoader();
                Class<?> changes = Class.forName("org.apache.iceberg.SnapshotChanges", false, iceberg);
                Class<?> builder = Class.forName("org.apache.iceberg.SnapshotChanges$Builder", false, iceberg);
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                MethodType iterable = MethodType.methodType(Iterable.class);
                return new Handles(
                        lookup.findStatic(changes, "builderFor", MethodType.methodType(builder, Table.class)),
                        lookup.findVirtual(builder, "snapshot", MethodType.methodType(builder, Snapshot.class)),
                        lookup.findVirtual(builder, "build", MethodType.methodType(changes)),
                        lookup.findVirtual(changes, "addedDataFiles", iterable),
                        lookup.findVirtual(changes, "removedDataFiles", iterable),
                        lookup.findVirtual(changes, "addedDeleteFiles", iterable),
                        lookup.findVirtual(changes, "removedDeleteFiles", iterable));
            } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException | LinkageError e) {
                return null; // Iceberg before 1.11: Snapshot's own methods
            }
        }
    }
}
