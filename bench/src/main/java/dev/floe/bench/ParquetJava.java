package dev.floe.bench;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;

/**
 * The throughput benchmark's comparison: plain parquet-java reading a table's files
 * ({@code ParquetReader} with {@code GroupReadSupport}), and rewriting their rows into one file
 * ({@code ExampleParquetWriter}, ZSTD level {@value #ZSTD_LEVEL}, row groups of {@value
 * #ROW_GROUP_ROWS} rows), as a Java program would without floe.
 */
final class ParquetJava {
    static final int ROW_GROUP_ROWS = 131072;
    static final int ZSTD_LEVEL = 3;

    private ParquetJava() {}

    /** Reads every row of {@code paths}; returns how many. */
    static long read(List<String> paths, Configuration conf) throws IOException {
        long rows = 0;
        for (String path : paths) {
            try (ParquetReader<Group> reader = ParquetReader.builder(
                            new GroupReadSupport(), new org.apache.hadoop.fs.Path(path))
                    .withConf(conf)
                    .build()) {
                while (reader.read() != null) {
                    rows++;
                }
            }
        }
        return rows;
    }

    /** Rows, bytes and row groups written. */
    static long[] rewrite(List<String> paths, org.apache.hadoop.fs.Path target, Configuration conf) throws IOException {
        MessageType schema;
        try (ParquetFileReader footer =
                ParquetFileReader.open(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(paths.get(0)), conf))) {
            schema = footer.getFooter().getFileMetaData().getSchema();
        }
        Configuration writeConf = new Configuration(conf);
        writeConf.setInt("parquet.compression.codec.zstd.level", ZSTD_LEVEL);
        long rows = 0;
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(target)
                .withConf(writeConf)
                .withType(schema)
                .withCompressionCodec(CompressionCodecName.ZSTD)
                .withRowGroupRowCountLimit(ROW_GROUP_ROWS)
                .withRowGroupSize(512L << 20)
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                .build()) {
            for (String path : paths) {
                try (ParquetReader<Group> reader = ParquetReader.builder(
                                new GroupReadSupport(), new org.apache.hadoop.fs.Path(path))
                        .withConf(conf)
                        .build()) {
                    Group group;
                    while ((group = reader.read()) != null) {
                        writer.write(group);
                        rows++;
                    }
                }
            }
        }
        long bytes = target.getFileSystem(conf).getFileStatus(target).getLen();
        long rowGroups;
        try (ParquetFileReader footer = ParquetFileReader.open(HadoopInputFile.fromPath(target, conf))) {
            rowGroups = footer.getRowGroups().size();
        }
        return new long[] {rows, bytes, rowGroups};
    }
}
