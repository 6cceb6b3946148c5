package dev.floe.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Streams rows into large ZSTD Parquet files in a table's data location, starting a new file past
 * the target size. Nothing is committed here: the caller commits the returned files in one append.
 *
 * <p>Memory: Parquet buffers one row group per open file, and only one file is open at a time. The
 * row-group byte target is set so a group holds about {@code rowGroupRows} rows of the estimated
 * size, never more than {@code rowGroupMaxBytes}; Parquet itself only flushes by bytes.
 *
 * <p>On any failure every file this writer started is deleted before the error is rethrown.
 */
final class RollingParquetWriter {
  /** How often, in rows, the open file's size is checked against the target. */
  private static final int SIZE_CHECK_ROWS = 1_000;

  private final Table table;
  private final RebuildSettings settings;
  private final Consumer<String> onFileStarted;

  /**
   * @param table where the files go: its schema, spec, location provider and io
   * @param onFileStarted told each file's location before anything is written to it, so a crash
   *     mid-write can still find the file
   */
  RollingParquetWriter(Table table, RebuildSettings settings, Consumer<String> onFileStarted) {
    this.table = table;
    this.settings = settings;
    this.onFileStarted = onFileStarted;
  }

  /** The rolled files and the row accounting of one stream. */
  record Result(List<DataFile> files, long rowsIn, long rowsOut) {
    long bytes() {
      return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    }
  }

  /** Write properties a rebuild adds to the table it writes, so later writers keep them. */
  static Map<String, String> tableWriteProperties(RebuildSettings settings) {
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.PARQUET_COMPRESSION, "zstd");
    props.put(TableProperties.PARQUET_COMPRESSION_LEVEL, Integer.toString(settings.zstdLevel()));
    return props;
  }

  /**
   * Writes {@code rows}, dropping those {@code prune} selects.
   *
   * @param estimatedBytesPerRow the source's on-disk bytes per row, used to aim row groups at the
   *     row target; 0 when unknown
   */
  Result write(Iterable<Record> rows, Prune prune, double estimatedBytesPerRow) {
    GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
    factory.setAll(table.properties());
    factory.setAll(tableWriteProperties(settings));
    factory.set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Long.toString(rowGroupBytes(estimatedBytesPerRow)));
    factory.set(
        TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT,
        Integer.toString(settings.rowGroupRows()));
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, System.nanoTime())
            .format(FileFormat.PARQUET)
            .operationId("floe-rebuild")
            .build();

    List<DataFile> written = new ArrayList<>();
    List<String> started = new ArrayList<>();
    DataWriter<Record> writer = null;
    long rowsIn = 0;
    long rowsOut = 0;
    long rowsInFile = 0;
    try {
      for (Record row : rows) {
        rowsIn += 1;
        if (prune.drop(row)) {
          continue;
        }
        if (writer == null) {
          EncryptedOutputFile out = files.newOutputFile();
          String location = out.encryptingOutputFile().location();
          onFileStarted.accept(location);
          started.add(location);
          writer = factory.newDataWriter(out, FileFormat.PARQUET, null);
          rowsInFile = 0;
        }
        writer.write(row);
        rowsOut += 1;
        rowsInFile += 1;
        if (rowsInFile % SIZE_CHECK_ROWS == 0 && writer.length() >= settings.targetFileBytes()) {
          writer.close();
          written.add(writer.toDataFile());
          writer = null;
        }
      }
      if (writer != null) {
        writer.close();
        written.add(writer.toDataFile());
        writer = null;
      }
      return new Result(List.copyOf(written), rowsIn, rowsOut);
    } catch (Exception e) {
      closeQuietly(writer, e);
      for (String location : started) {
        deleteQuietly(location, e);
      }
      if (e instanceof RuntimeException) {
        throw (RuntimeException) e;
      }
      if (e instanceof IOException) {
        throw new UncheckedIOException((IOException) e);
      }
      throw new RebuildException("prune " + prune.getClass().getName() + " threw on a row", e);
    }
  }

  /** Aim at the row target with the estimated row size, inside the memory bound. */
  private long rowGroupBytes(double estimatedBytesPerRow) {
    if (estimatedBytesPerRow <= 0) {
      return settings.rowGroupMaxBytes();
    }
    long aimed = (long) Math.ceil(estimatedBytesPerRow * settings.rowGroupRows());
    return Math.max(1L << 20, Math.min(aimed, settings.rowGroupMaxBytes()));
  }

  private static void closeQuietly(DataWriter<Record> writer, Exception failure) {
    if (writer != null) {
      try {
        writer.close();
      } catch (IOException | RuntimeException e) {
        failure.addSuppressed(e);
      }
    }
  }

  private void deleteQuietly(String location, Exception failure) {
    try {
      table.io().deleteFile(location);
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }
}
