package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.samples.Events;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/** What a table the sample ingest wrote must hold, read back after the ingest ended. */
final class IngestRows {
    private IngestRows() {}

    /** Every row of ids {@code 0 .. rows-1} exactly once, each field as the ingest wrote it. */
    static void assertEveryRowOnce(Table table, long rows) throws Exception {
        BitSet seen = new BitSet();
        List<String> wrong = new ArrayList<>();
        long count = 0;
        GenericRecord template = GenericRecord.create(table.schema());
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                count++;
                long id = (Long) record.getField("id");
                assertThat(id).as("id").isBetween(0L, rows - 1);
                assertThat(seen.get((int) id)).as("id %d twice", id).isFalse();
                seen.set((int) id);
                Record expected = Events.row(template, id);
                for (Types.NestedField field : table.schema().columns()) {
                    Object value = record.getField(field.name());
                    if (!Objects.equals(value, expected.getField(field.name())) && wrong.size() < 10) {
                        wrong.add(id + "." + field.name() + "=" + value + ", expected "
                                + expected.getField(field.name()));
                    }
                }
            }
        }
        assertThat(wrong).as("fields read back unlike the ingest wrote them").isEmpty();
        assertThat(count).as("rows").isEqualTo(rows);
        assertThat(seen.cardinality()).as("distinct ids, dense from 0").isEqualTo((int) rows);
    }
}
