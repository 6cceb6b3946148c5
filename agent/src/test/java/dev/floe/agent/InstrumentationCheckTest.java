package dev.floe.agent;

import static org.assertj.core.api.Assertions.assertThat;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.junit.jupiter.api.Test;

/** The field floe's advice reads is checked in each loader's Iceberg before its guard starts. */
class InstrumentationCheckTest {
    @Test
    void icebergOnTheClassPathMatches() {
        assertThat(InstrumentationCheck.mismatch(getClass().getClassLoader())).isNull();
    }

    @Test
    void aSnapshotProducerWithoutTheFieldIsNamed() {
        ClassLoader loader = loaderWithProducer(new ByteBuddy().subclass(Object.class));

        assertThat(InstrumentationCheck.mismatch(loader))
                .isEqualTo(
                        "org.apache.iceberg.SnapshotProducer has no field 'ops' (floe's advice on SnapshotProducer.commit reads it)");
    }

    @Test
    void aFieldOfAnotherTypeIsNamed() {
        ClassLoader loader =
                loaderWithProducer(new ByteBuddy().subclass(Object.class).defineField("ops", String.class));

        assertThat(InstrumentationCheck.mismatch(loader))
                .startsWith(
                        "org.apache.iceberg.SnapshotProducer.ops is a java.lang.String, not a org.apache.iceberg.TableOperations");
    }

    /** A real class loader whose SnapshotProducer is the one built here, the rest of Iceberg the real one. */
    private ClassLoader loaderWithProducer(net.bytebuddy.dynamic.DynamicType.Builder<?> producer) {
        return producer.name(InstrumentationCheck.PRODUCER)
                .make()
                .load(getClass().getClassLoader(), ClassLoadingStrategy.Default.CHILD_FIRST)
                .getLoaded()
                .getClassLoader();
    }
}
