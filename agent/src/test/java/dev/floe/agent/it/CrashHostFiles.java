package dev.floe.agent.it;

import java.io.IOException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/** How the test hosts write one data file of rows {@code firstId ..}, with plain Iceberg. */
final class CrashHostFiles {
    private CrashHostFiles() {}

    static DataFile write(Table table, long firstId, int count) throws IOException {
        GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
        factory.setAll(table.properties());
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .build();
        DataWriter<Record> writer = factory.newDataWriter(files.newOutputFile(), FileFormat.PARQUET, (StructLike) null);
        try (writer) {
            for (long id = firstId; id < firstId + count; id++) {
                GenericRecord row = GenericRecord.create(table.schema());
                row.setField("id", id);
                row.setField("payload", "row-" + id);
                writer.write(row);
            }
        }
        return writer.toDataFile();
    }
}
