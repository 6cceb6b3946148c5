package dev.floe.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link RebuildSettings#with}: every setting copied, the one changed changed, bad values refused. */
class RebuildSettingsTest {
    @Test
    void aCopyChangedInNothingEqualsItsSource() {
        RebuildSettings changed = RebuildSettings.defaults().with(s -> {
            s.fullEvery = 4;
            s.historyKeep = Duration.ofMinutes(5);
        });
        assertThat(changed.with(s -> {})).isEqualTo(changed);
        assertThat(changed.fullEvery()).isEqualTo(4);
        assertThat(changed.historyKeep()).isEqualTo(Duration.ofMinutes(5));
        assertThat(changed.with(s -> s.historyKeep = Duration.ofHours(1)))
                .isEqualTo(RebuildSettings.defaults().with(s -> s.fullEvery = 4));
    }

    @Test
    void historyIsKeptAnHourByDefault() {
        assertThat(RebuildSettings.defaults().historyKeep()).isEqualTo(Duration.ofHours(1));
        assertThat(RebuildSettings.defaults().historyKeepSnapshots()).isEqualTo(2000);
    }

    @Test
    void aBadValueIsRefusedWithTheConstructorsMessage() {
        assertThatThrownBy(() -> RebuildSettings.defaults().with(s -> s.historyKeepSnapshots = 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("historyKeepSnapshots must be positive: 0");
        assertThatThrownBy(() -> RebuildSettings.defaults().with(s -> s.historyKeep = Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("historyKeep must not be negative");
    }
}
