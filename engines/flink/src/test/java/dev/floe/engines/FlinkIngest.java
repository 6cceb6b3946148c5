package dev.floe.engines;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import dev.floe.catalog.MapDbCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.relocated.com.google.common.collect.Iterables;
import org.apache.iceberg.types.Types.LongType;
import org.apache.iceberg.types.Types.StringType;

/**
 * An Apache Flink job as a new user writes it: a local MiniCluster, checkpoints every 300 ms,
 * exactly-once, Iceberg's own sink ({@code FlinkSink.forRowData}) into {@code db.events} of a
 * {@link MapDbCatalog}, a bounded {@link DataGeneratorSource} of ids {@code 0..rows-1}. It knows
 * nothing of floe; run it with or without the agent.
 *
 * <pre>
 * java --add-opens ... -cp &lt;test class path&gt; dev.floe.engines.FlinkIngest \
 *     &lt;dir&gt; &lt;rows&gt; &lt;rows-per-second&gt; &lt;parallelism&gt; &lt;inject&gt;
 * </pre>
 *
 * <p>{@code <inject>} says when a checkpoint fails once, on purpose:
 *
 * <ul>
 *   <li>{@code after-rebuild:K@T}: right after each of the first K rebuilds (the head of {@code
 *       main} carries {@code floe.rebuild-of-snapshot}: floe's rebuilt snapshot, on top of the
 *       history it kept or alone); T is the agent's {@code floe.trigger.snapshots}, so the program
 *       knows when a rebuild is due;
 *   <li>{@code after-commit:S1,S2,...}: right after the commit whose snapshot has sequence number
 *       S1, S2, ... (the control run without the agent);
 *   <li>{@code none}.
 * </ul>
 *
 * <p>How ({@link #atBarrier}): map subtask 0 throws from its {@code snapshotState}, while the
 * checkpoint it is taking cannot complete, so Flink commits nothing between the throw and the
 * restore. Before it throws it waits for the commit of the last completed checkpoint and, when a
 * rebuild is under way or due, for the rebuilt table to go live: the restored committer then finds
 * the rebuilt snapshot at the head, having absorbed its last commit, the case of issue 12. Failing
 * a task on a record instead is not enough: a commit waiting at floe's gate during the swap lands on
 * the rebuilt snapshot just after the throw, and the restore finds its markers. A watcher thread
 * polls the catalog's pointer for the table ({@link MapDbCatalog#metadataLocation}, an in-memory
 * read) every 2 ms and notes every head. The MiniCluster runs in this JVM and the job's user-code
 * class loader has no jars of its own, so the operator and the watcher share these statics
 * (checked: {@code sharedStatics} in the RESULT line).
 *
 * <p>At the end it reads the table back and prints one line: {@code RESULT status= rows=
 * distinctIds= badRows= snapshots= rebuildsSeen= injected= injectedAfterRebuild=
 * skippedInjections= mapReopens= sharedStatics= elapsedMs=}. Exit code 0 when the job finished and
 * every id is there exactly once with its payload, 1 otherwise, 2 on bad arguments.
 */
public final class FlinkIngest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final Schema SCHEMA =
            new Schema(required(1, "id", LongType.get()), optional(2, "payload", StringType.get()));
    static final String REBUILD_MARKER = "floe.rebuild-of-snapshot";
    private static final String PREFIX = "flink-ingest: ";

    /** The payload of row {@code id}: distinct per row, so a row read back is checked field by field. */
    public static String payload(long id) {
        return "event-" + id + "-" + Long.toHexString(id * 0x9E3779B97F4A7C15L);
    }

    /** Catalog properties for {@code dir}: the MapDB file and the tables under {@code dir/warehouse}. */
    public static Map<String, String> catalogProperties(Path dir) {
        return Map.of(
                CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("warehouse").toString(),
                CatalogProperties.URI, dir.resolve("catalog.db").toString());
    }

    /** The snapshots of main's ancestry above the newest rebuilt one (all of them if none). */
    static int sinceRebuild(TableMetadata metadata) {
        int count = 0;
        for (Snapshot s = metadata.currentSnapshot();
                s != null && !s.summary().containsKey(REBUILD_MARKER);
                s = s.parentId() == null ? null : metadata.snapshot(s.parentId())) {
            count += 1;
        }
        return count;
    }

    // ---- state shared by the watcher and the operators (one JVM, one class loader) ----

    /**
     * The head of main: read from the catalog's pointer and its metadata file.
     *
     * @param committedCheckpoint the head's {@code flink.max-committed-checkpoint-id}, -1 if none
     * @param snapshots how many snapshots were committed since the last rebuild (what floe's
     *     snapshot trigger counts)
     */
    record Head(
            String location,
            long snapshotId,
            Long parentId,
            long sequenceNumber,
            boolean rebuilt,
            long committedCheckpoint,
            int snapshots) {}

    /**
     * When to fail: after each of the first {@code afterRebuilds} rebuilds (floe rebuilds at {@code
     * triggerSnapshots} snapshots), or after the commits with these sequence numbers.
     */
    record Plan(int afterRebuilds, int triggerSnapshots, List<Long> afterCommits) {
        int failures() {
            return afterRebuilds > 0 ? afterRebuilds : afterCommits.size();
        }

        static Plan parse(String inject) {
            if (inject.startsWith("after-rebuild:")) {
                String[] parts = inject.substring("after-rebuild:".length()).split("@");
                return new Plan(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), List.of());
            }
            if (inject.startsWith("after-commit:")) {
                List<Long> commits = new ArrayList<>();
                for (String s : inject.substring("after-commit:".length()).split(",")) {
                    commits.add(Long.parseLong(s.trim()));
                }
                return new Plan(0, 0, commits);
            }
            if (inject.equals("none")) {
                return new Plan(0, 0, List.of());
            }
            throw new IllegalArgumentException(
                    "inject is after-rebuild:<failures>@<floe.trigger.snapshots>, after-commit:S1,S2,... or none, not "
                            + inject);
        }
    }

    static volatile MapDbCatalog watcherCatalog;
    static volatile Plan plan;
    private static Head cachedHead;
    /** The highest {@code flink.max-committed-checkpoint-id} a head has carried so far. */
    static final AtomicLong COMMITTED = new AtomicLong(-1);
    /** The highest checkpoint Flink told the map operator is complete (it commits next). */
    static final AtomicLong COMPLETED = new AtomicLong(-1);
    /** Each rebuilt snapshot seen as the head, to the highest checkpoint committed before it: what it absorbed. */
    static final Map<Long, Long> REBUILT = new ConcurrentHashMap<>();

    static final Set<Long> INJECTED_AT = ConcurrentHashMap.newKeySet();
    static final AtomicInteger INJECTED = new AtomicInteger();
    static final AtomicInteger INJECTED_AFTER_REBUILD = new AtomicInteger();
    static final AtomicInteger SKIPPED = new AtomicInteger();
    static final AtomicInteger RESTARTS = new AtomicInteger();
    /** Set by main: the class loader the operators must see these statics through. */
    static final String LOADER_PROPERTY = "flink-ingest.loader";
    /** Set by an operator that sees another copy of this class. */
    static final String FOREIGN_LOADER_PROPERTY = "flink-ingest.foreign-loader";

    static void say(String line) {
        System.out.println(PREFIX + line);
        System.out.flush();
    }

    /**
     * The head of main now; the metadata file is parsed only when the pointer moved. Every head
     * parsed is noted: the highest committed checkpoint, and each rebuilt snapshot with what it
     * absorbed. The watcher calls this every 2 ms, so it sees every head (commits are ~300 ms apart).
     */
    static synchronized Head head() {
        MapDbCatalog catalog = watcherCatalog;
        String location = catalog.metadataLocation(EVENTS);
        if (location == null) {
            return null;
        }
        if (cachedHead != null && cachedHead.location().equals(location)) {
            return cachedHead;
        }
        TableMetadata metadata;
        try {
            metadata = TableMetadataParser.read(catalog.io(), location);
        } catch (NotFoundException retiredMeanwhile) {
            return cachedHead;
        }
        Snapshot current = metadata.currentSnapshot();
        if (current == null) {
            cachedHead = new Head(location, -1, null, 0, false, -1, 0);
            return cachedHead;
        }
        String checkpoint = current.summary().get("flink.max-committed-checkpoint-id");
        Head head = new Head(
                location,
                current.snapshotId(),
                current.parentId(),
                current.sequenceNumber(),
                current.summary().containsKey(REBUILD_MARKER),
                checkpoint == null ? -1 : Long.parseLong(checkpoint),
                sinceRebuild(metadata));
        if (head.rebuilt() && !REBUILT.containsKey(head.snapshotId())) {
            long absorbed = Math.max(COMMITTED.get(), head.committedCheckpoint());
            REBUILT.put(head.snapshotId(), absorbed);
            say("watcher: head is rebuilt snapshot " + head.snapshotId() + " (rebuild " + REBUILT.size()
                    + "), absorbing commits up to checkpoint " + absorbed + "; its summary "
                    + (head.committedCheckpoint() < 0
                            ? "has no flink.* keys"
                            : "says checkpoint " + head.committedCheckpoint()));
        }
        COMMITTED.accumulateAndGet(head.committedCheckpoint(), Math::max);
        cachedHead = head;
        return head;
    }

    static Thread watcher() {
        Thread thread = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            head();
                        } catch (RuntimeException e) {
                            say("watcher: " + e);
                        }
                        try {
                            Thread.sleep(2);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "head-watcher");
        thread.setDaemon(true);
        return thread;
    }

    private static boolean scratchTablePresent() {
        return watcherCatalog.listTables(EVENTS.namespace()).stream()
                .anyMatch(t -> t.name().startsWith(EVENTS.name() + "__c"));
    }

    private static boolean await(java.util.function.BooleanSupplier condition, long millis)
            throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(2);
        }
        return true;
    }

    /**
     * The failure injection, at the barrier of {@code checkpoint} in map subtask 0: a checkpoint
     * failure, thrown while this checkpoint cannot complete, so no commit can land between the throw
     * and the restore.
     *
     * <ol>
     *   <li>Wait for the commit of the last completed checkpoint (Flink commits it on completion; it
     *       may be waiting at floe's gate).
     *   <li>After-rebuild plan: if a rebuild is under way (floe's scratch table {@code events__c...}
     *       exists) or due (the head has reached the trigger), hold this barrier until the rebuilt
     *       table is live: with this checkpoint held, it absorbs every commit there is.
     *   <li>Throw if the head is now the one to fail after: a rebuilt snapshot that absorbed the last
     *       completed checkpoint (after-rebuild), or the commit of that checkpoint once its sequence
     *       number reaches the next target (after-commit).
     * </ol>
     */
    static void atBarrier(int subtask, long checkpoint) throws InterruptedException {
        Plan p = plan;
        if (subtask != 0 || INJECTED.get() >= p.failures()) {
            return;
        }
        long completed = COMPLETED.get();
        if (!await(() -> head().committedCheckpoint() >= completed || COMMITTED.get() >= completed, 5_000)) {
            return; // nothing to commit for it (an empty checkpoint): no failure at this barrier
        }
        Head now = head();
        String reason = null;
        if (p.afterRebuilds() > 0) {
            boolean due = !now.rebuilt() && now.snapshots() >= p.triggerSnapshots();
            if (due || scratchTablePresent()) {
                long held = System.nanoTime();
                boolean live = await(() -> head().rebuilt() && !INJECTED_AT.contains(head().snapshotId()), 20_000);
                say("barrier " + checkpoint + " held " + (System.nanoTime() - held) / 1_000_000 + " ms for a rebuild "
                        + (due ? "due" : "under way") + (live ? ", now live" : ", which did not come"));
            }
            now = head();
            Long absorbed = REBUILT.get(now.snapshotId());
            if (now.rebuilt() && absorbed != null && absorbed >= completed && INJECTED_AT.add(now.snapshotId())) {
                reason = "after rebuild " + REBUILT.size() + " (rebuilt snapshot " + now.snapshotId()
                        + " absorbed checkpoint " + absorbed + ", the last completed)";
            } else if (now.rebuilt() && INJECTED_AT.add(now.snapshotId())) {
                SKIPPED.incrementAndGet();
                say("injection skipped at barrier " + checkpoint + ": rebuilt snapshot " + now.snapshotId()
                        + " absorbed only checkpoint " + absorbed + ", not " + completed);
            }
        } else {
            long target = p.afterCommits().get(INJECTED.get());
            if (!now.rebuilt()
                    && now.sequenceNumber() >= target
                    && now.committedCheckpoint() == completed
                    && INJECTED_AT.add(now.snapshotId())) {
                reason = "after commit " + now.sequenceNumber() + " (snapshot " + now.snapshotId() + ", checkpoint "
                        + completed + ")";
            }
        }
        if (reason == null) {
            return;
        }
        int n = INJECTED.incrementAndGet();
        if (now.rebuilt()) {
            INJECTED_AFTER_REBUILD.incrementAndGet();
        }
        say("INJECT checkpoint failure " + n + " at barrier " + checkpoint + " in map subtask " + subtask + ": head is "
                + "snapshot " + now.snapshotId() + ", parent " + now.parentId() + ", " + reason);
        throw new IllegalStateException(
                "injected checkpoint failure " + n + " at checkpoint " + checkpoint + ", right " + reason);
    }

    /** The operator after the source: id to row; its checkpoint barrier is where a failure is injected. */
    static final class ToRow extends RichMapFunction<Long, RowData>
            implements CheckpointedFunction, CheckpointListener {
        private transient int subtask;

        @Override
        public void open(OpenContext context) {
            subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            int attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
            // a static cannot tell whether it is the program's copy; a system property is one per JVM
            String loader = Integer.toHexString(System.identityHashCode(FlinkIngest.class.getClassLoader()));
            if (!loader.equals(System.getProperty(LOADER_PROPERTY))) {
                System.setProperty(FOREIGN_LOADER_PROPERTY, "true");
                say("map subtask " + subtask + " sees FlinkIngest through " + FlinkIngest.class.getClassLoader()
                        + ", not the program's loader: the injection cannot reach it");
            }
            if (attempt > 0) {
                RESTARTS.incrementAndGet();
                Head head = head();
                say("map subtask " + subtask + " restarted (attempt " + attempt + "), head snapshot "
                        + (head == null ? "none" : head.snapshotId() + " rebuilt " + head.rebuilt()));
            }
        }

        @Override
        public RowData map(Long id) {
            return GenericRowData.of(id, StringData.fromString(payload(id)));
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            atBarrier(subtask, context.getCheckpointId());
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (checkpointId != Long.MAX_VALUE) {
                COMPLETED.accumulateAndGet(checkpointId, Math::max);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println(
                    "usage: FlinkIngest <dir> <rows> <rows-per-second> <parallelism> <after-rebuild:K@T|after-commit:S1,S2|none>");
            System.exit(2);
        }
        Path dir = Path.of(args[0]).toAbsolutePath();
        long rows = Long.parseLong(args[1]);
        double rate = Double.parseDouble(args[2]);
        int parallelism = Integer.parseInt(args[3]);
        String inject = args[4];
        System.setProperty(
                LOADER_PROPERTY, Integer.toHexString(System.identityHashCode(FlinkIngest.class.getClassLoader())));

        Map<String, String> properties = catalogProperties(dir);
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("watcher", properties);
        watcherCatalog = catalog;
        if (!catalog.namespaceExists(Namespace.of("db"))) {
            catalog.createNamespace(Namespace.of("db"));
        }
        if (!catalog.tableExists(EVENTS)) {
            catalog.createTable(
                    EVENTS, SCHEMA, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
        }
        plan = Plan.parse(inject);
        Thread watcher = watcher();
        watcher.start();

        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
        conf.set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, true);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(RestOptions.BIND_PORT, "0");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);

        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(id -> id, rows, RateLimiterStrategy.perSecond(rate), Types.LONG);
        DataStream<RowData> events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "ids")
                .uid("ids")
                .map(new ToRow())
                .uid("to-row")
                .returns(InternalTypeInfo.of(FlinkSchemaUtil.convert(SCHEMA)));
        TableLoader loader = TableLoader.fromCatalog(
                CatalogLoader.custom(
                        "ingest", properties, new org.apache.hadoop.conf.Configuration(), MapDbCatalog.class.getName()),
                EVENTS);
        FlinkSink.forRowData(events)
                .tableLoader(loader)
                .uidPrefix("events-sink")
                .append();

        long start = System.nanoTime();
        String status;
        try {
            env.execute("floe-engines flink ingest");
            status = "FINISHED";
        } catch (Exception e) {
            status = "FAILED";
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            say("job failed: " + root);
            e.printStackTrace(System.out);
        }
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        watcher.interrupt();
        watcher.join();

        Table table = catalog.loadTableUncached(EVENTS);
        long count = 0;
        long bad = 0;
        BitSet seen = new BitSet();
        Set<Long> outOfRange = new HashSet<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record r : records) {
                count++;
                long id = (Long) r.getField("id");
                if (id < 0 || id >= rows) {
                    outOfRange.add(id);
                } else {
                    seen.set((int) id);
                }
                if (!payload(id).equals(r.getField("payload"))) {
                    bad++;
                }
            }
        }
        int snapshots = Iterables.size(table.snapshots());
        if (seen.cardinality() < rows) {
            List<Long> missing = new ArrayList<>();
            for (int i = seen.nextClearBit(0); i < rows && missing.size() < 50; i = seen.nextClearBit(i + 1)) {
                missing.add((long) i);
            }
            say("missing ids (first 50): " + missing);
        }
        catalog.close();
        System.out.println(String.format(
                "RESULT status=%s rows=%d distinctIds=%d badRows=%d snapshots=%d rebuildsSeen=%d injected=%d"
                        + " injectedAfterRebuild=%d skippedInjections=%d mapReopens=%d sharedStatics=%s elapsedMs=%d",
                status,
                count,
                seen.cardinality() + outOfRange.size(),
                bad + outOfRange.size(),
                snapshots,
                REBUILT.size(),
                INJECTED.get(),
                INJECTED_AFTER_REBUILD.get(),
                SKIPPED.get(),
                RESTARTS.get(),
                !Boolean.getBoolean(FOREIGN_LOADER_PROPERTY),
                elapsedMs));
        boolean exact = status.equals("FINISHED")
                && count == rows
                && seen.cardinality() == rows
                && bad == 0
                && outOfRange.isEmpty();
        System.out.flush();
        System.exit(exact ? 0 : 1);
    }

    private FlinkIngest() {}
}
