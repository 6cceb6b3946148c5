package dev.floe.runtime.rows;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.ParquetUtil;

/**
 * The host's parquet-java file reader and writer, for {@link RowGroupCopy}, reached by reflection.
 * The Iceberg runtimes engines ship (iceberg-spark-runtime, iceberg-flink-runtime) relocate Parquet
 * inside them, so no floe class may name a Parquet type ({@code ParquetClassesTest}): the classes
 * are found beside Iceberg's own Parquet support ({@link ParquetUtil}), under whatever package they
 * were relocated to, and Iceberg's package-private {@code ParquetIO} adapts Iceberg's files to them.
 * Every call here is per file, never per row.
 */
final class HostParquet {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HostParquet.class);
    private static volatile HostParquet shared;
    /** Why the host's Parquet could not be reached, once it could not: said once, not looked for again. */
    private static volatile IllegalStateException missing;

    /** What a file's footer says that a copy needs. */
    record Footer(Object schema, String schemaName, Map<String, String> keyValues, long[] rowGroupRows, boolean zstd) {}

    private final Method inputFile;
    private final Method outputFile;
    private final Method open;
    /**
     * Read options built once: {@code ParquetFileReader.open(InputFile)} builds its own each time,
     * and with them a Hadoop configuration that parses Hadoop's default XML resources again (a
     * promotion of eight files spent half its stream phase there).
     */
    private final Object readOptions;

    private final Method readerFooter;
    private final Method appendTo;
    private final Method convert;
    private final Constructor<?> writer;
    private final Object create;
    private final Method start;
    private final Method end;
    private final Method writerFooter;
    private final Method pos;
    private final Method splitOffsets;

    private HostParquet() throws ReflectiveOperationException {
        Method offsets = null;
        for (Method m : ParquetUtil.class.getMethods()) {
            if (m.getName().equals("getSplitOffsets") && m.getParameterCount() == 1) {
                offsets = m;
            }
        }
        if (offsets == null) {
            throw new NoSuchMethodException("ParquetUtil.getSplitOffsets(ParquetMetadata)");
        }
        this.splitOffsets = offsets;
        Class<?> metadata = offsets.getParameterTypes()[0];
        String name = metadata.getName();
        String prefix = name.substring(0, name.length() - ".hadoop.metadata.ParquetMetadata".length());
        ClassLoader loader = metadata.getClassLoader();
        Class<?> parquetInput = Class.forName(prefix + ".io.InputFile", false, loader);
        Class<?> parquetOutput = Class.forName(prefix + ".io.OutputFile", false, loader);
        Class<?> messageType = Class.forName(prefix + ".schema.MessageType", false, loader);
        Class<?> reader = Class.forName(prefix + ".hadoop.ParquetFileReader", false, loader);
        Class<?> writerClass = Class.forName(prefix + ".hadoop.ParquetFileWriter", false, loader);
        Class<?> mode = Class.forName(prefix + ".hadoop.ParquetFileWriter$Mode", false, loader);
        Class<?> io = Class.forName("org.apache.iceberg.parquet.ParquetIO", false, ParquetUtil.class.getClassLoader());
        this.inputFile = io.getDeclaredMethod("file", InputFile.class);
        this.outputFile = io.getDeclaredMethod("file", OutputFile.class);
        inputFile.setAccessible(true);
        outputFile.setAccessible(true);
        Class<?> options = Class.forName(prefix + ".ParquetReadOptions", false, loader);
        Object builder = options.getMethod("builder").invoke(null);
        this.readOptions = builder.getClass().getMethod("build").invoke(builder);
        this.open = reader.getMethod("open", parquetInput, options);
        this.readerFooter = reader.getMethod("getFooter");
        this.appendTo = reader.getMethod("appendTo", writerClass);
        this.convert = Class.forName(
                        "org.apache.iceberg.parquet.ParquetSchemaUtil", false, ParquetUtil.class.getClassLoader())
                .getMethod("convert", Schema.class, String.class);
        this.writer = writerClass.getConstructor(parquetOutput, messageType, mode, long.class, int.class);
        this.create = mode.getField("CREATE").get(null);
        this.start = writerClass.getMethod("start");
        this.end = writerClass.getMethod("end", Map.class);
        this.writerFooter = writerClass.getMethod("getFooter");
        this.pos = writerClass.getMethod("getPos");
    }

    /** The host's Parquet, found once. */
    static HostParquet get() {
        HostParquet found = shared;
        if (found == null) {
            if (missing != null) {
                throw missing;
            }
            try {
                found = new HostParquet();
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                missing = new IllegalStateException(
                        "floe could not find parquet-java's file reader and writer beside the host's Iceberg ("
                                + e + "), so rebuilds re-encode every file instead of copying row groups;"
                                + " set floe.rebuild.copy-row-groups=false to say so",
                        e);
                LOG.warn("floe: {}", missing.getMessage());
                throw missing;
            }
            shared = found;
        }
        return found;
    }

    /** A parquet-java reader of {@code file}, to close. */
    Closeable open(InputFile file) throws IOException {
        return (Closeable) call(open, null, call(inputFile, null, file), readOptions);
    }

    Footer footer(Closeable reader) throws IOException {
        Object footer = call(readerFooter, reader);
        Object fileMetaData = invoke(footer, "getFileMetaData");
        Object schema = invoke(fileMetaData, "getSchema");
        @SuppressWarnings("unchecked")
        Map<String, String> keyValues = (Map<String, String>) invoke(fileMetaData, "getKeyValueMetaData");
        List<?> blocks = (List<?>) invoke(footer, "getBlocks");
        long[] rows = new long[blocks.size()];
        boolean zstd = true;
        for (int i = 0; i < rows.length; i++) {
            rows[i] = (Long) invoke(blocks.get(i), "getRowCount");
            for (Object column : (List<?>) invoke(blocks.get(i), "getColumns")) {
                zstd &= "ZSTD".equals(((Enum<?>) invoke(column, "getCodec")).name());
            }
        }
        return new Footer(schema, (String) invoke(schema, "getName"), keyValues, rows, zstd);
    }

    /** The Parquet schema Iceberg's writers give {@code schema}, named {@code name}. */
    Object schema(Schema schema, String name) throws IOException {
        return call(convert, null, schema, name);
    }

    /** A new parquet-java file writer of {@code file} with {@code schema}, started; it writes a MiB at a time. */
    Object startWriter(OutputFile file, Object schema, long rowGroupBytes) throws IOException {
        Object parquet = call(outputFile, null, new BufferedOutputFile(file));
        Object created;
        try {
            created = writer.newInstance(parquet, schema, create, rowGroupBytes, 0);
        } catch (InvocationTargetException e) {
            throw rethrown(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        try {
            call(start, created);
        } catch (IOException | RuntimeException e) {
            abort(created, e); // the writer opened its stream already
            throw e;
        }
        return created;
    }

    /** Copies every row group of the file {@code reader} reads into {@code writer}, byte for byte. */
    void appendTo(Closeable reader, Object writer) throws IOException {
        call(appendTo, reader, writer);
    }

    /** The position of {@code writer} in its file: once ended, the file's length. */
    long pos(Object writer) throws IOException {
        return (Long) call(pos, writer);
    }

    void end(Object writer, Map<String, String> keyValues) throws IOException {
        call(end, writer, keyValues);
    }

    /**
     * Closes {@code writer}'s file after a failure: its {@code close()} (parquet-java 1.14 and later),
     * else the stream it holds (its {@code out} field, 1.13); never throws.
     */
    void abort(Object writer, Exception failure) {
        try {
            writer.getClass().getMethod("close").invoke(writer);
        } catch (NoSuchMethodException e) {
            closeStream(writer, failure);
        } catch (ReflectiveOperationException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private static void closeStream(Object writer, Exception failure) {
        try {
            java.lang.reflect.Field out = writer.getClass().getDeclaredField("out");
            out.setAccessible(true);
            if (out.get(writer) instanceof Closeable stream) {
                stream.close();
            }
        } catch (ReflectiveOperationException | IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** The row groups' offsets of the ended {@code writer}'s file, Iceberg's split offsets. */
    @SuppressWarnings("unchecked")
    List<Long> splitOffsets(Object writer) throws IOException {
        return new ArrayList<>((List<Long>) call(splitOffsets, null, call(writerFooter, writer)));
    }

    /** {@code target.method()}, looked up on its first public class (footer classes have private subclasses). */
    private static Object invoke(Object target, String method) throws IOException {
        Class<?> type = target.getClass();
        while (!java.lang.reflect.Modifier.isPublic(type.getModifiers()) && type.getSuperclass() != null) {
            type = type.getSuperclass();
        }
        try {
            return call(type.getMethod(method), target);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(target.getClass().getName() + " has no " + method + "()", e);
        }
    }

    private static Object call(Method method, Object target, Object... args) throws IOException {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw rethrown(e);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static IOException rethrown(InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        throw new UncheckedIOException(new IOException(cause));
    }
}
