package dev.floe.runtime.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.ContentFileUtil;

/** Real delete files, written as a host's writer writes them: position deletes, deletion vectors, equality deletes. */
public final class RowDeltas {
    private RowDeltas() {}

    /**
     * Creates table {@code id} of format {@code formatVersion} with four tiny files of ten rows, one
     * append each: ids 0-9, 10-19, 20-29, 30-39 (row {@code p} of file {@code f} has id {@code 10 f + p}).
     */
    public static List<DataFile> fourTinyFiles(
            org.apache.iceberg.catalog.Catalog catalog,
            org.apache.iceberg.catalog.TableIdentifier id,
            int formatVersion) {
        Table table = catalog.buildTable(id, TestTables.SIMPLE)
                .withProperty(org.apache.iceberg.TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
                .create();
        List<DataFile> files = new ArrayList<>();
        for (int f = 0; f < 4; f++) {
            DataFile file = TestTables.writeFile(table, TestTables.simpleRows(f * 10L, 10));
            table.newFastAppend().appendFile(file).commit();
            files.add(file);
        }
        return files;
    }

    /** A position-delete file (format 2) of {@code positions} of {@code file}. */
    public static DeleteFile positionDeletes(Table table, DataFile file, long... positions) {
        GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
        PositionDeleteWriter<Record> writer = factory.newPosDeleteWriter(
                outputs(table, FileFormat.PARQUET).newOutputFile(), FileFormat.PARQUET, null);
        try (writer) {
            PositionDelete<Record> delete = PositionDelete.create();
            for (long pos : positions) {
                writer.write(delete.set(file.location(), pos, null));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return writer.toDeleteFile();
    }

    /**
     * The deletion vector (format 3) of {@code file} with {@code positions}, merged with the one the
     * table holds for it now, as Iceberg's writers do; {@code replaced} gets the one it replaces.
     */
    public static DeleteFile vector(Table table, DataFile file, List<DeleteFile> replaced, long... positions) {
        DeleteFile previous = currentVector(table, file.location());
        BaseDVFileWriter writer = new BaseDVFileWriter(
                outputs(table, FileFormat.PUFFIN),
                path -> previous == null
                        ? null
                        : new BaseDeleteLoader(f -> table.io().newInputFile(f.location()))
                                .loadPositionDeletes(List.of(previous), path));
        try (writer) {
            for (long pos : positions) {
                writer.delete(file.location(), pos, table.spec(), null);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        replaced.addAll(writer.result().rewrittenDeleteFiles());
        return writer.result().deleteFiles().get(0);
    }

    /** An equality-delete file on {@code id} of {@code ids}. */
    public static DeleteFile equalityDeletes(Table table, long... ids) {
        Schema idOnly = table.schema().select("id");
        int idField = table.schema().findField("id").fieldId();
        GenericAppenderFactory factory =
                new GenericAppenderFactory(table.schema(), table.spec(), new int[] {idField}, idOnly, null);
        EqualityDeleteWriter<Record> writer =
                factory.newEqDeleteWriter(outputs(table, FileFormat.PARQUET).newOutputFile(), FileFormat.PARQUET, null);
        try (writer) {
            for (long id : ids) {
                Record key = GenericRecord.create(idOnly);
                key.setField("id", id);
                writer.write(key);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return writer.toDeleteFile();
    }

    /** The current snapshot's delete files, each once. */
    public static List<DeleteFile> deleteFiles(Table table) {
        table.refresh();
        Map<String, DeleteFile> deletes = new java.util.LinkedHashMap<>();
        if (table.currentSnapshot() == null) {
            return List.of();
        }
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> task.deletes().forEach(d -> deletes.putIfAbsent(d.location(), d)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ArrayList<>(deletes.values());
    }

    /** The current snapshot's data files, in scan order. */
    public static List<DataFile> dataFiles(Table table) {
        table.refresh();
        List<DataFile> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static DeleteFile currentVector(Table table, String dataFile) {
        return deleteFiles(table).stream()
                .filter(d -> ContentFileUtil.isDV(d) && dataFile.equals(d.referencedDataFile()))
                .findFirst()
                .orElse(null);
    }

    private static OutputFileFactory outputs(Table table, FileFormat format) {
        return OutputFileFactory.builderFor(table, 7, System.nanoTime())
                .format(format)
                .build();
    }
}
