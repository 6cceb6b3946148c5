package dev.floe.agent;

import static net.bytebuddy.matcher.ElementMatchers.declaresField;
import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.nameContains;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

/**
 * floe's entry point: {@code -javaagent:floe-agent.jar[=floe.properties]} at start, or attached to a
 * running JVM. It reads and validates the configuration, checks the host's Iceberg, and instruments
 * these methods, each with advice of a line or two that hands off to {@link dev.floe.bootstrap.FloeBridge}:
 *
 * <ul>
 *   <li>{@code commit(base, metadata)} of {@code BaseMetastoreTableOperations} (JDBC, Hive, Glue,
 *       Nessie, floe's MapDbCatalog), {@code HadoopTableOperations} and {@code RESTTableOperations}:
 *       every metadata commit of a guarded table (appends, overwrites, row deltas, expiries,
 *       transactions) passes the writer gate and is observed;
 *   <li>{@code SnapshotProducer.commit()}: a snapshot-producing operation holds the gate from its
 *       first apply to its last retry, so one that waited through a swap applies itself to the
 *       swapped table instead of failing once and backing off;
 *   <li>{@code loadTable}, {@code registerTable}, {@code createTable} of every catalog class and the
 *       table builder's {@code create}: which table of which catalog each handle is, and the
 *       handles the host holds are tracked;
 *   <li>{@code initialize(name, properties)} of every catalog class: recovery runs for each catalog
 *       opened, and floe learns how to open an instance of its own of a shared catalog.
 * </ul>
 *
 * Whatever goes wrong here, the host runs on, unguarded, and one line says why.
 */
public final class FloeAgent {
    /** The release, as the build wrote it into {@code floe-version.properties}. */
    static final String VERSION = buildVersion();

    private static final AtomicBoolean STARTED = new AtomicBoolean();
    /** The types floe's advice was woven into, per class loader (weakly), as Byte Buddy reports them. */
    private static final java.util.Map<ClassLoader, java.util.Set<String>> TRANSFORMED =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private FloeAgent() {}

    /** Called by {@link dev.floe.agent.boot.AgentBoot} in the agent's own class loader. */
    public static void start(String args, Instrumentation instrumentation, Path agentJar) {
        if (!STARTED.compareAndSet(false, true)) {
            AgentLog.warn("floe is already running in this JVM; the second start is ignored");
            return;
        }
        try {
            ClassLoader system = ClassLoader.getSystemClassLoader();
            IcebergSupport iceberg = IcebergSupport.detect(system);
            // the prune class is checked here when the system class loader has Iceberg, else by each
            // class loader's guard in that loader
            AgentConfig config = AgentConfig.load(args, System.getProperties(), iceberg.present() ? system : null);
            config.warnings().forEach(AgentLog::warn);
            if (!config.enabled()) {
                AgentLog.info("floe " + VERSION + " is disabled (floe.enabled=false); the host runs unguarded");
                return;
            }
            String unsupported = iceberg.present() ? iceberg.unsupportedReason() : null;
            if (unsupported != null) {
                AgentLog.warn("floe " + VERSION + " steps aside: " + unsupported + "; the host runs unguarded");
                return;
            }
            BridgeInjection.intoBootstrap(instrumentation, FloeAgent.class.getClassLoader());
            dev.floe.runtime.rest.RestListener rest = RestStart.open(config.rest());
            BridgeInstall.install(agentJar, config.values(), config.source(), rest == null ? null : rest::swap);
            instrument(instrumentation);
            String what = iceberg.present()
                    ? "guards Iceberg " + iceberg.version()
                    : "is ready: no Iceberg on the system class path, so it guards Iceberg in each class loader that loads it";
            AgentLog.info("floe " + VERSION + " " + what
                    + " (config: " + config.source() + "): instruments the commits of table operations,"
                    + " SnapshotProducer.commit, catalogs' loadTable/registerTable/createTable/initialize, table builders' create"
                    + " (each class loader's guard proves it when it starts); tables "
                    + (config.settings().tables().isEmpty()
                            ? "all of MapDbCatalog (of other catalogs none: floe.tables names those)"
                            : config.settings().tables())
                    + ", rebuild at " + config.settings().triggerSnapshots() + " snapshots or "
                    + config.settings().triggerDataFiles() + " data files or "
                    + config.settings().triggerMetadataBytes() + " metadata bytes"
                    + (config.settings().mergeManifests() > 0
                            ? ", merge manifests at " + config.settings().mergeManifests()
                            : ", no manifest merges")
                    + RestStart.describe(config.rest(), rest));
        } catch (ConfigException e) {
            AgentLog.error("floe " + VERSION + " stays off: " + e.getMessage() + ". The host runs unguarded.");
        } catch (Throwable e) {
            AgentLog.error("floe " + VERSION + " could not start (" + e + "); the host runs unguarded");
            if (Boolean.getBoolean("floe.internal.trace")) {
                e.printStackTrace();
            }
        }
    }

    private static void instrument(Instrumentation instrumentation) {
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(AgentBuilder.TypeStrategy.Default.REDEFINE)
                .with(new FailureListener())
                .ignore(nameStartsWith("net.bytebuddy.").or(nameStartsWith("dev.floe.shaded.")))
                .type(named(METASTORE_OPS).or(named(HADOOP_OPS)).or(named(REST_OPS)))
                .transform(advice(
                        CommitAdvice.class,
                        named("commit").and(takesArguments(2)).and(not(isAbstract()))))
                .type(named("org.apache.iceberg.SnapshotProducer")
                        .and(declaresField(named(InstrumentationCheck.OPS_FIELD))))
                .transform(advice(
                        OperationAdvice.class,
                        named("commit").and(takesArguments(0)).and(not(isAbstract()))))
                // every catalog class (by name first: resolving the supertypes of every class the host
                // loads would cost its start-up)
                .type(nameContains("Catalog").and(not(isInterface())).and(hasSuperType(named(CATALOG))))
                .transform(advice(
                        LoadTableAdvice.class,
                        named("loadTable")
                                .or(named("registerTable"))
                                .or(named("createTable"))
                                .and(takesArgument(0, named("org.apache.iceberg.catalog.TableIdentifier")))
                                .and(returns(named("org.apache.iceberg.Table")))
                                .and(not(isAbstract()))))
                .transform(advice(
                        CatalogOpenedAdvice.class,
                        named("initialize")
                                .and(takesArguments(2))
                                .and(takesArgument(0, String.class))
                                .and(takesArgument(1, named("java.util.Map")))
                                .and(not(isAbstract()))))
                .transform(advice(
                        CatalogClosedAdvice.class,
                        named("close").and(takesArguments(0)).and(not(isAbstract()))))
                .type(named(BUILDER))
                .transform(advice(CreateTableAdvice.class, named("create").and(takesArguments(0))))
                .installOn(instrumentation);
    }

    private static AgentBuilder.Transformer advice(
            Class<?> adviceClass,
            net.bytebuddy.matcher.ElementMatcher<? super net.bytebuddy.description.method.MethodDescription> method) {
        return (builder, type, loader, module, domain) ->
                builder.visit(Advice.to(adviceClass).on(method));
    }

    /** Reports, once per type, a class floe meant to instrument and could not. */
    private static final class FailureListener extends AgentBuilder.Listener.Adapter {
        @Override
        public void onError(
                String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable throwable) {
            if (REQUIRED.contains(typeName) || OPTIONAL.contains(typeName)) {
                AgentLog.error(
                        "floe could not instrument " + typeName + " (" + throwable + "); its commits are not guarded");
            }
        }

        @Override
        public void onTransformation(
                TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded, DynamicType dynamicType) {
            // quiet here: each class loader's guard says what was woven into its classes when it starts
            TRANSFORMED
                    .computeIfAbsent(loader, l -> java.util.concurrent.ConcurrentHashMap.newKeySet())
                    .add(type.getName());
        }
    }

    static final String CATALOG = "org.apache.iceberg.catalog.Catalog";
    static final String METASTORE_OPS = "org.apache.iceberg.BaseMetastoreTableOperations";
    static final String HADOOP_OPS = "org.apache.iceberg.hadoop.HadoopTableOperations";
    static final String REST_OPS = "org.apache.iceberg.rest.RESTTableOperations";
    static final String BUILDER = "org.apache.iceberg.BaseMetastoreCatalog$BaseMetastoreCatalogTableBuilder";

    /**
     * The types floe instruments that every Iceberg has, each of which a guarded class loader must
     * see woven: the commits of every table's operations, the operation, and the catalogs of
     * iceberg-core (others, such as Hive's or Glue's, are woven as the host loads them).
     */
    static final java.util.List<String> REQUIRED = java.util.List.of(
            METASTORE_OPS,
            HADOOP_OPS,
            REST_OPS,
            "org.apache.iceberg.SnapshotProducer",
            BUILDER,
            "org.apache.iceberg.BaseMetastoreCatalog",
            "org.apache.iceberg.rest.RESTCatalog",
            "org.apache.iceberg.CachingCatalog");

    /** Types woven where the class loader has them: floe's own catalog. */
    static final java.util.List<String> OPTIONAL = java.util.List.of("dev.floe.catalog.MapDbCatalog");

    /**
     * Proves the instrumentation as {@code loader} sees it, as BlockHound does at install: loads
     * (without initializing) each type floe instruments, so Byte Buddy weaves any not yet loaded, and
     * adds to {@code missing} each one that was not woven. Returns what was, counted and named.
     */
    static String provenIn(ClassLoader loader, java.util.List<String> missing) {
        java.util.List<String> woven = new java.util.ArrayList<>();
        int expected = 0;
        for (String target : concat(REQUIRED, OPTIONAL)) {
            Class<?> type;
            try {
                type = Class.forName(target, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                if (REQUIRED.contains(target)) {
                    missing.add(target + " (not found: " + e + ")");
                    expected += 1;
                }
                continue;
            }
            expected += 1;
            if (TRANSFORMED
                    .getOrDefault(type.getClassLoader(), java.util.Set.of())
                    .contains(target)) {
                woven.add(type.getSimpleName());
            } else {
                missing.add(target);
            }
        }
        return woven.size() + " of " + expected + " types " + woven;
    }

    private static java.util.List<String> concat(java.util.List<String> a, java.util.List<String> b) {
        java.util.List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static String buildVersion() {
        try (java.io.InputStream in = FloeAgent.class.getResourceAsStream("floe-version.properties")) {
            java.util.Properties properties = new java.util.Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "(unknown version)");
        } catch (java.io.IOException e) {
            return "(unknown version)";
        }
    }
}
