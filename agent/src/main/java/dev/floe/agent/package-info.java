/**
 * The agent: what {@code -javaagent:floe-agent.jar} (or attaching to a running JVM) installs, and how
 * it reaches Iceberg wherever the host loads it.
 *
 * <h2>Three kinds of class loader</h2>
 *
 * A real ingest host seldom keeps Iceberg on the system class path: a Spring Boot fat jar, a Kafka
 * Connect plugin and a Flink job each load it in a class loader of their own, and one JVM may hold
 * several such loaders, each with its own copy of Iceberg. floe therefore never assumes one Iceberg
 * per JVM. Its classes live in three places:
 *
 * <ol>
 *   <li><b>The boot classes</b> ({@link dev.floe.agent.boot.AgentBoot}, {@link
 *       dev.floe.agent.boot.IsolatingLoader}), the only classes at the top of the agent jar, which
 *       the JVM puts on the system class path. They use the JDK alone. Everything else sits under
 *       {@code floe/} in the jar, where only an {@code IsolatingLoader} looks: so floe's catalog,
 *       MapDB and relocated libraries never shadow a host's own copies, even in class loaders that
 *       ask the system loader first (Spring Boot's).
 *   <li><b>The bridge</b> ({@link dev.floe.bootstrap.FloeBridge}), injected at start into the
 *       bootstrap class loader, which every class loader asks first. The advice woven into
 *       Iceberg's classes ({@code CommitAdvice}, {@code OperationAdvice}, {@code LoadTableAdvice},
 *       {@code CatalogOpenedAdvice}) is one call to it, with the objects at hand typed as {@code
 *       Object}: that is all that crosses from the host's loaders to floe's.
 *   <li><b>One guard per class loader</b> that defines {@code dev.floe.catalog.MapDbTableOperations}.
 *       The agent's own loader (an {@code IsolatingLoader} over the system loader, running {@link
 *       dev.floe.agent.FloeAgent}) installs {@link dev.floe.agent.LoaderGuards} behind the bridge.
 *       The first object of a loader {@code L} that comes through makes it create an {@code
 *       IsolatingLoader} whose parent is {@code L}: floe's runtime is defined there, from the agent
 *       jar, and links against {@code L}'s Iceberg, Parquet, Hadoop and SLF4J, and against {@code
 *       L}'s own {@code MapDbCatalog}, the class the host's tables really are. That loader's {@link
 *       dev.floe.agent.Hooks} owns its {@link dev.floe.runtime.guard.Guard}: gate, background thread,
 *       triggers, MBeans (named with {@code ,loader=<name>} outside the system loader). Two
 *       isolated loaders with two copies of Iceberg get two guards that share nothing.
 * </ol>
 *
 * <h2>Start-up</h2>
 *
 * {@code premain} reads and checks the configuration once; it does not need Iceberg. When the system
 * class path has Iceberg, floe checks its version there and steps aside (one line) if it is not 1.10
 * or 1.11; when it has none, floe says it will guard Iceberg in whichever loader loads it. Each
 * loader's guard checks that loader's Iceberg version and finds the configured prune class in that
 * loader; if either fails, one line says so and that loader's commits go on unguarded. A guard is
 * created on its loader's first commit or catalog, never before, so floe touches nothing of the
 * host while it starts.
 *
 * <h2>The REST catalog endpoint</h2>
 *
 * With {@code floe.rest.port} set, {@code premain} binds {@link dev.floe.runtime.rest.RestListener}
 * in the agent's own loader (JDK types only, so the start line can print the port) and hands its
 * {@code swap}, a {@code BiPredicate<HttpHandler, HttpHandler>} (a compare-and-set), to every
 * loader's {@link dev.floe.agent.Hooks}. The first guard whose host opens a MapDbCatalog builds the
 * handler there, against that loader's Iceberg and Jackson ({@link dev.floe.agent.RestAttachment}),
 * and attaches it; when the host closes its last instance on that file the guard detaches it and
 * closes its own instance, so the file is free, and the next MapDbCatalog opened (in any loader) is
 * served. Only JDK types cross between the loaders.
 *
 * <h2>What the host must carry</h2>
 *
 * Its Iceberg (1.9 to 1.12, with Parquet and Hadoop) and, next to it in the same loader, the
 * catalog: {@code floe-catalog-adapter.jar} with MapDB 3.1.0 and MapDB's dependencies (Iceberg
 * already brings Caffeine). The agent jar's own copy of the catalog serves only the operator CLI.
 */
package dev.floe.agent;
