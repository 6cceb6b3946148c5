package dev.floe.runtime.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A handler's close waits for the requests running, and refuses new ones. */
class InFlightRequestsTest {
    @Test
    void closeWaitsForTheRunningRequestAndRefusesNewOnes() throws Exception {
        InFlightRequests requests = new InFlightRequests();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
            assertThat(requests.enter()).isTrue();
            entered.countDown();
            try {
                finish.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                requests.exit();
            }
        });
        entered.await();
        CompletableFuture<Boolean> closed =
                CompletableFuture.supplyAsync(() -> requests.closeAndAwait(Duration.ofMinutes(1)));
        // once close has begun, no request enters, while the one running still runs
        while (requests.enter()) {
            requests.exit();
            Thread.onSpinWait();
        }
        assertThat(closed).isNotDone();
        finish.countDown();
        assertThat(closed.get(1, TimeUnit.MINUTES))
                .as("every running request ended")
                .isTrue();
        running.get(1, TimeUnit.MINUTES);
        assertThat(requests.enter()).isFalse();
    }

    @Test
    void aRequestThatDoesNotEndBoundsTheWait() throws Exception {
        InFlightRequests requests = new InFlightRequests();
        assertThat(requests.enter()).isTrue();
        boolean ended = CompletableFuture.supplyAsync(() -> requests.closeAndAwait(Duration.ofMillis(50)))
                .get(1, TimeUnit.MINUTES);
        assertThat(ended).isFalse();
        requests.exit();
    }
}
