package dev.floe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

/** The heap probe, in this JVM, while another thread holds the GC locker most of the time. */
class HeapWatchTest {
    /**
     * A thread deflating in a loop is inside a JNI critical region (the JDK's Deflater on byte
     * arrays) most of the time, and HotSpot then drops most System.gc() requests with no word (97
     * of 100 on G1 in a trial); every probe still measures, asking again after the locker's
     * collection.
     */
    @Test
    void aProbeMeasuresWhileAnotherThreadIsInJniCriticalRegions() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        Thread deflating = new Thread(
                () -> {
                    byte[] input = new byte[1 << 20];
                    new Random(1).nextBytes(input);
                    byte[] output = new byte[2 << 20];
                    while (running.get()) {
                        Deflater deflater = new Deflater();
                        deflater.setInput(input);
                        deflater.finish();
                        while (!deflater.finished()) {
                            deflater.deflate(output);
                        }
                        deflater.end();
                    }
                },
                "deflating");
        deflating.setDaemon(true);
        try (HeapWatch heap = new HeapWatch()) {
            deflating.start();
            for (int probe = 0; probe < 5; probe++) {
                long live = heap.collectAndMeasure();
                assertThat(live).as("probe %d", probe).isPositive();
                heap.record(live, false);
            }
            assertThat(heap.missingProbes()).isZero();
            assertThat(heap.probedLiveBytes()).isPositive();
        } finally {
            running.set(false);
            deflating.join();
        }
    }

    @Test
    void aFullCollectionIsAMajorOneOfAnyCauseOrAWholeCycleSystemGcAskedFor() {
        assertThat(HeapWatch.isFull("end of major GC", "System.gc()")).isTrue();
        assertThat(HeapWatch.isFull("end of major GC", "G1 Evacuation Pause")).isTrue();
        assertThat(HeapWatch.isFull("end of major GC", "Allocation Failure")).isTrue();
        assertThat(HeapWatch.isFull("end of GC cycle", "System.gc()")).isTrue();
        assertThat(HeapWatch.isFull("end of minor GC", "System.gc()")).isFalse();
        assertThat(HeapWatch.isFull("end of minor GC", "GCLocker Initiated GC")).isFalse();
        assertThat(HeapWatch.isFull("end of minor GC", "G1 Humongous Allocation"))
                .isFalse();
        assertThat(HeapWatch.isFull("end of GC cycle", "Allocation Stall")).isFalse();
    }
}
