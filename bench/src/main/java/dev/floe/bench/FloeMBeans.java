package dev.floe.bench;

import java.lang.management.ManagementFactory;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * floe as any operator sees it from inside the host: the platform MBean server's {@code
 * dev.floe:type=Agent} and {@code dev.floe:type=Table,name=<table>} attributes {@code Rebuilds},
 * {@code RebuildFailures}, {@code LastReport} and {@code LastError}.
 */
final class FloeMBeans {
    private FloeMBeans() {}

    static void requireAgent() throws Exception {
        if (!server().isRegistered(new ObjectName("dev.floe:type=Agent"))) {
            throw new IllegalStateException("no MBean dev.floe:type=Agent: run this with the floe agent attached"
                    + " (-javaagent:floe-agent.jar) and floe.jmx=true");
        }
    }

    /**
     * The guard's rebuilds running now and its rebuilds and errors so far ({@code dev.floe:type=Agent});
     * zeros without the agent. Only rebuilds: a reclaim or a trim is floe's work between rebuilds, and
     * what it holds counts as what the guard holds.
     */
    static long[] rebuildState() {
        try {
            ObjectName agent = new ObjectName("dev.floe:type=Agent");
            if (!server().isRegistered(agent)) {
                return new long[2];
            }
            long running = ((Number) server().getAttribute(agent, "RebuildsRunning")).longValue();
            long ended = ((Number) server().getAttribute(agent, "Rebuilds")).longValue()
                    + ((Number) server().getAttribute(agent, "Errors")).longValue();
            return new long[] {running, ended};
        } catch (Exception e) {
            throw new IllegalStateException("cannot read floe's MBean dev.floe:type=Agent: " + e, e);
        }
    }

    /** The rebuilds and failed rebuilds of {@code id} so far. */
    static long[] rebuildsAndFailures(TableIdentifier id) throws Exception {
        return new long[] {attribute(id, "Rebuilds", 0L), attribute(id, "RebuildFailures", 0L)};
    }

    /**
     * {@link #rebuildsAndFailures} of a table that must not have been rebuilt yet: the commit about to
     * be made is the one meant to start its rebuild. Throws when one ran already (something else
     * added snapshots, a manifest merge say), instead of waiting for a rebuild that will not come.
     */
    static long[] noRebuildYet(TableIdentifier id) throws Exception {
        long[] before = rebuildsAndFailures(id);
        if (before[0] > 0 || before[1] > 0) {
            throw new IllegalStateException("floe rebuilt " + id + " before the commit meant to trigger it ("
                    + before[0] + " rebuilds, " + before[1] + " failed): run this host with"
                    + " -Dfloe.merge.manifests=0 and -Dfloe.trigger.snapshots=<files+1>");
        }
        return before;
    }

    /** Waits for the table's Rebuilds to pass {@code before[0]}; its LastReport, or throws. */
    static String awaitRebuild(TableIdentifier id, long[] before) throws Exception {
        long deadline = System.nanoTime() + 30L * 60 * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (attribute(id, "Rebuilds", 0L) > before[0]) {
                return String.valueOf(server().getAttribute(name(id), "LastReport"));
            }
            if (attribute(id, "RebuildFailures", 0L) > before[1]) {
                throw new IllegalStateException(
                        "the rebuild of " + id + " failed: " + server().getAttribute(name(id), "LastError"));
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("no rebuild of " + id + " within 30 minutes");
    }

    private static long attribute(TableIdentifier id, String attribute, long absent) throws Exception {
        try {
            return ((Number) server().getAttribute(name(id), attribute)).longValue();
        } catch (InstanceNotFoundException e) {
            return absent;
        }
    }

    private static MBeanServer server() {
        return ManagementFactory.getPlatformMBeanServer();
    }

    private static ObjectName name(TableIdentifier id) throws Exception {
        return new ObjectName("dev.floe:type=Table,name=" + id);
    }
}
