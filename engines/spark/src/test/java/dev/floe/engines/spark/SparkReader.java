package dev.floe.engines.spark;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A reader that knows nothing of floe: Apache Spark in local mode with Iceberg's own {@code
 * SparkCatalog} on floe's REST endpoint, querying the table over and over until a stop file appears.
 * After each query: {@code read n=<n> count=<rows> distinct=<ids> max=<highest id> ms=<its time>
 * uptimeMs=<since this JVM started>}; at the
 * end {@code RESULT reads= decreases= inconsistent= notFound= errors= firstCount= lastCount=}.
 *
 * <p>The host writes ids 0, 1, 2, ... with none skipped, so one whole snapshot always has {@code
 * count == distinct == max + 1}; a read that is not (rows missing, or rows of two snapshots) is
 * inconsistent. A count lower than the read before is a decrease: a reader went back in time.
 *
 * <p>Arguments: the endpoint's URI, the token, the table ({@code namespace.table}), the stop file.
 */
public final class SparkReader {
    /** A reader that queries often, not one that takes a core from the host and its rebuilds. */
    static final long PAUSE_MS = 100;

    private long reads;
    private long decreases;
    private long inconsistent;
    private long notFound;
    private long errors;
    private long first = -1;
    private long last = -1;

    private SparkReader() {}

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String token = args[1];
        String table = args[2];
        Path stop = Path.of(args[3]);
        SparkSession spark = session(uri, token);
        System.out.println("spark " + spark.version() + " reads floe." + table + " through " + uri);
        SparkReader reader = new SparkReader();
        String query = "SELECT count(*), count(DISTINCT id), max(id) FROM floe." + table;
        while (!Files.exists(stop)) {
            reader.readOnce(spark, query);
            Thread.sleep(PAUSE_MS);
        }
        System.out.println(reader.result());
        System.out.flush();
        spark.stop();
        // the RESULT line is out: end here even if a thread of Spark's lingers
        System.exit(0);
    }

    static SparkSession session(String uri, String token) {
        return SparkSession.builder()
                .appName("floe-spark-reader")
                .master("local[2]")
                // loopback only, no UI: nothing of this test listens beyond 127.0.0.1
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.ui.enabled", "false")
                // a query of a few thousand rows: two shuffle partitions, and no adaptive re-planning between
                // its stages (in runs here on two cores, the first read came about ten seconds sooner without)
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.adaptive.enabled", "false")
                .config("spark.sql.catalog.floe", "org.apache.iceberg.spark.SparkCatalog")
                .config("spark.sql.catalog.floe.type", "rest")
                .config("spark.sql.catalog.floe.uri", uri)
                // a static bearer token: Iceberg's OAuth2 manager sends it as it is and, with no credential
                // and no expiry, never asks a token endpoint (floe serves none) for another
                .config("spark.sql.catalog.floe.rest.auth.type", "oauth2")
                .config("spark.sql.catalog.floe.token", token)
                .config("spark.sql.catalog.floe.token-refresh-enabled", "false")
                .config("spark.sql.catalog.floe.io-impl", "org.apache.iceberg.hadoop.HadoopFileIO")
                // every query loads the table afresh from the endpoint. Iceberg's cache (on by default) expires
                // a table 30 s after its last use, so a session that queries more often keeps its first load
                // for good: it sees no new commit, and once floe.reclaim.grace has passed after the next
                // rebuild, every query fails on the retired files (seen here with the cache on)
                .config("spark.sql.catalog.floe.cache-enabled", "false")
                .getOrCreate();
    }

    private void readOnce(SparkSession spark, String query) {
        long t0 = System.nanoTime();
        try {
            Row row = spark.sql(query).first();
            long count = row.getLong(0);
            long distinct = row.getLong(1);
            long max = row.isNullAt(2) ? -1 : row.getLong(2);
            reads++;
            if (count != distinct || count != max + 1) {
                inconsistent++;
                System.out.println("reader saw an inconsistent table: count " + count + ", distinct ids " + distinct
                        + ", highest id " + max);
            }
            if (count < last) {
                decreases++;
                System.out.println("reader saw fewer rows: " + count + " after " + last);
            }
            if (first < 0) {
                first = count;
            }
            last = count;
            System.out.println("read n=" + reads + " count=" + count + " distinct=" + distinct + " max=" + max + " ms="
                    + (System.nanoTime() - t0) / 1_000_000 + " uptimeMs="
                    + ManagementFactory.getRuntimeMXBean().getUptime());
        } catch (Exception e) {
            if (isNotFound(e)) {
                notFound++;
                System.out.println("reader found no table: " + e);
            } else {
                errors++;
                System.out.println("reader error: " + e);
                e.printStackTrace(System.out);
            }
        }
    }

    /**
     * Spark's own not-found (an {@code AnalysisException} of class {@code TABLE_OR_VIEW_NOT_FOUND},
     * "Table or view not found" before Spark 3.4) or Iceberg's {@code NoSuchTableException}, anywhere
     * in the causes.
     */
    static boolean isNotFound(Throwable t) {
        Set<Throwable> seen = new HashSet<>();
        for (Throwable e = t; e != null && seen.add(e); e = e.getCause()) {
            if (e.getClass().getSimpleName().equals("NoSuchTableException")) {
                return true;
            }
            if (e instanceof AnalysisException analysis && "TABLE_OR_VIEW_NOT_FOUND".equals(analysis.getErrorClass())) {
                return true;
            }
            String message = String.valueOf(e.getMessage());
            if (message.contains("Table or view not found") || message.contains("TABLE_OR_VIEW_NOT_FOUND")) {
                return true;
            }
        }
        return false;
    }

    private String result() {
        return "RESULT reads=" + reads + " decreases=" + decreases + " inconsistent=" + inconsistent + " notFound="
                + notFound + " errors=" + errors + " firstCount=" + first + " lastCount=" + last;
    }
}
