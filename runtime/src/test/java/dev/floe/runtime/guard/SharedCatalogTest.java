package dev.floe.runtime.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;

/** Which instance of a shared catalog floe's background work runs on, as the host opens and closes its own. */
class SharedCatalogTest {
    private static InMemoryCatalog hostCatalog() {
        InMemoryCatalog catalog = new InMemoryCatalog();
        catalog.initialize("ingest", Map.of());
        return catalog;
    }

    @Test
    void aHostsCloseWaitsForTheWorkAtHandOnItsInstanceThenWorkWaitsForItsNextOne() throws Exception {
        InMemoryCatalog host = hostCatalog();
        SharedCatalog shared = SharedCatalog.of(host, "ingest", Map.of(), null);
        CountDownLatch working = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        List<Object> done = new CopyOnWriteArrayList<>();
        Thread floe = new Thread(() -> shared.withInstance(instance -> {
            working.countDown();
            await(finish);
            ((InMemoryCatalog) instance).createNamespace(Namespace.of("db")); // not closed yet: it works
            done.add(instance);
        }));
        floe.start();
        assertThat(working.await(1, TimeUnit.MINUTES)).isTrue();

        CountDownLatch closed = new CountDownLatch(1);
        Thread hostThread = new Thread(() -> {
            shared.hostClosed(host, Duration.ofMinutes(1));
            try {
                host.close();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            closed.countDown();
        });
        hostThread.start();
        // the close waits for the work at hand: observed, not slept on
        while (hostThread.getState() != Thread.State.TIMED_WAITING
                && hostThread.getState() != Thread.State.TERMINATED) {
            Thread.onSpinWait();
        }
        assertThat(closed.getCount()).as("closed while floe's work used it").isEqualTo(1);

        finish.countDown();
        assertThat(closed.await(1, TimeUnit.MINUTES)).isTrue();
        floe.join();
        assertThat(done).containsExactly(host);

        assertThat(shared.withInstance(done::add))
                .as("no instance of floe's own beside the host's next")
                .isFalse();
        InMemoryCatalog reopened = hostCatalog();
        shared.hostOpened(reopened);
        assertThat(shared.withInstance(done::add)).isTrue();
        assertThat(done).containsExactly(host, reopened);
    }

    @Test
    void aCloseWithNoWorkOnTheInstanceDoesNotWait() throws Exception {
        InMemoryCatalog host = hostCatalog();
        SharedCatalog shared = SharedCatalog.of(host, "ingest", Map.of(), null);

        shared.hostClosed(host, Duration.ofDays(1)); // would hang the test if it waited

        assertThat(shared.closedByHost()).isTrue();
        assertThat(shared.withInstance(instance -> {})).isFalse();
    }

    @Test
    void closingAnOlderInstanceTheHostReplacedLeavesTheNewerInUse() throws Exception {
        InMemoryCatalog older = hostCatalog();
        SharedCatalog shared = SharedCatalog.of(older, "ingest", Map.of(), null);
        InMemoryCatalog newer = hostCatalog();
        shared.hostOpened(newer);

        shared.hostClosed(older, Duration.ZERO);
        older.close();

        List<Catalog> used = new CopyOnWriteArrayList<>();
        assertThat(shared.withInstance(used::add)).isTrue();
        assertThat(used).containsExactly(newer);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(1, TimeUnit.MINUTES)).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
