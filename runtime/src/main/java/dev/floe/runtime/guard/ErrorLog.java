package dev.floe.runtime.guard;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The guard's failures: counted, the last one kept for JMX, each logged once as one line. */
final class ErrorLog {
    /** Under the guard's name: operators filter floe's errors by it. */
    private static final Logger LOG = LoggerFactory.getLogger(Guard.class);

    private final AtomicLong count = new AtomicLong();
    private volatile String last = "";

    void record(String what, Throwable e) {
        count.incrementAndGet();
        last = what + ": " + e;
        LOG.error("floe: failed {}: {}", what, e.toString());
        LOG.debug("floe: failure detail", e);
    }

    long count() {
        return count.get();
    }

    String last() {
        return last;
    }
}
