package dev.floe.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.runtime.Prune;
import dev.floe.runtime.guard.GuardSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentConfigTest {
    @TempDir
    Path dir;

    private AgentConfig load(String fileContent, String... systemPairs) throws Exception {
        Path file = null;
        if (fileContent != null) {
            file = dir.resolve("floe.properties");
            Files.writeString(file, fileContent);
        }
        Properties system = new Properties();
        for (int i = 0; i < systemPairs.length; i += 2) {
            system.setProperty(systemPairs[i], systemPairs[i + 1]);
        }
        return AgentConfig.load(
                file == null ? null : file.toString(), system, getClass().getClassLoader());
    }

    @Test
    void everyKeyHasItsDocumentedDefault() throws Exception {
        AgentConfig config = load(null);
        GuardSettings s = config.settings();
        assertThat(config.enabled()).isTrue();
        assertThat(s.tables()).isEmpty();
        assertThat(s.triggerSnapshots()).isEqualTo(500);
        assertThat(s.triggerDataFiles()).isEqualTo(1000);
        assertThat(s.triggerMetadataBytes()).isEqualTo(16L << 20);
        assertThat(s.minInterval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(s.rebuild().rowGroupRows()).isEqualTo(131072);
        assertThat(s.rebuild().targetFileBytes()).isEqualTo(512L << 20);
        assertThat(s.rebuild().zstdLevel()).isEqualTo(3);
        assertThat(s.rebuild().reclaimGrace()).isEqualTo(Duration.ofMinutes(10));
        assertThat(s.maxTrackedHandles()).isEqualTo(512);
        assertThat(s.jmx()).isTrue();
        assertThat(s.prune().get()).isSameAs(Prune.NONE);
        assertThat(config.warnings()).isEmpty();
    }

    @Test
    void fileValuesAreReadAndSystemPropertiesOverrideThem() throws Exception {
        AgentConfig config = load(
                "floe.tables=db.events, logs.*\nfloe.trigger.snapshots=200\nfloe.trigger.min-interval=5s\n"
                        + "floe.trigger.metadata-bytes=512KiB\nfloe.reclaim.grace=PT30S\n",
                "floe.trigger.snapshots",
                "300",
                "floe.rebuild.target-file-bytes",
                "1GiB");
        GuardSettings s = config.settings();
        assertThat(s.tables()).containsExactly("db.events", "logs.*");
        assertThat(s.triggerSnapshots()).isEqualTo(300);
        assertThat(s.minInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.triggerMetadataBytes()).isEqualTo(512L << 10);
        assertThat(s.rebuild().reclaimGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.rebuild().targetFileBytes()).isEqualTo(1L << 30);
        assertThat(config.source()).endsWith("floe.properties");
    }

    @Test
    void configFileCanBeNamedBySystemProperty() throws Exception {
        Path file = dir.resolve("other.properties");
        Files.writeString(file, "floe.trigger.data-files=7\n");
        Properties system = new Properties();
        system.setProperty("floe.config", file.toString());
        AgentConfig config = AgentConfig.load(null, system, getClass().getClassLoader());
        assertThat(config.settings().triggerDataFiles()).isEqualTo(7);
    }

    @Test
    void unknownKeysAreWarningsNamingThem() throws Exception {
        AgentConfig config = load("floe.trigger.snapshot=10\nsomething.else=1\n", "floe.bogus", "x");
        assertThat(config.enabled()).isTrue();
        assertThat(config.warnings())
                .anySatisfy(w -> assertThat(w)
                        .contains("'floe.trigger.snapshot'")
                        .contains("did you mean floe.trigger.snapshots"))
                .anySatisfy(w -> assertThat(w).contains("'something.else'"))
                .anySatisfy(w -> assertThat(w).contains("'floe.bogus'"));
        assertThat(config.settings().triggerSnapshots()).isEqualTo(500);
    }

    @Test
    void invalidValuesNameTheKeyTheValueAndTheExpectedForm() {
        assertInvalid(
                "floe.trigger.snapshots=lots\n",
                "floe.trigger.snapshots is 'lots'; expected a whole number of snapshots");
        assertInvalid("floe.trigger.snapshots=-5\n", "floe.trigger.snapshots is '-5'");
        assertInvalid(
                "floe.trigger.min-interval=5 minutes\n",
                "floe.trigger.min-interval is '5 minutes'; expected a duration such as 30s");
        assertInvalid("floe.reclaim.grace=-PT1M\n", "floe.reclaim.grace is '-PT1M'");
        assertInvalid(
                "floe.trigger.metadata-bytes=16 megs\n", "floe.trigger.metadata-bytes is '16 megs'; expected a size");
        assertInvalid(
                "floe.rebuild.zstd-level=30\n", "floe.rebuild.zstd-level is '30'; expected a ZSTD level from 1 to 22");
        assertInvalid("floe.enabled=yes\n", "floe.enabled is 'yes'; expected true or false");
        assertInvalid("floe.handles.max=-1\n", "floe.handles.max is '-1'");
    }

    @Test
    void missingFileIsAClearError() {
        assertThatThrownBy(() -> AgentConfig.load(
                        dir.resolve("nope.properties").toString(),
                        new Properties(),
                        getClass().getClassLoader()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("nope.properties does not exist")
                .hasMessageContaining("-javaagent:floe-agent.jar=<file>");
    }

    @Test
    void unreadableFileIsAClearError() throws Exception {
        Path folder = Files.createDirectory(dir.resolve("a-folder.properties"));
        assertThatThrownBy(() -> AgentConfig.load(
                        folder.toString(), new Properties(), getClass().getClassLoader()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("a-folder.properties cannot be read")
                .hasMessageContaining("is readable by this process");
    }

    @Test
    void pruneClassIsValidatedAtStart() throws Exception {
        assertInvalid("floe.rebuild.prune-class=com.example.Missing\n", "no such class");
        assertInvalid("floe.rebuild.prune-class=java.lang.String\n", "does not implement dev.floe.runtime.Prune");
        assertInvalid(
                "floe.rebuild.prune-class=" + NoDefaultConstructor.class.getName() + "\n",
                "no public no-argument constructor");
        AgentConfig config = load("floe.rebuild.prune-class=" + DropAll.class.getName() + "\n");
        assertThat(config.settings().prune().get()).isInstanceOf(DropAll.class);
    }

    @Test
    void theRestEndpointIsOffByDefaultAndLoopbackReadOnlyWhenOn() throws Exception {
        assertThat(load(null).rest()).isNull();
        dev.floe.runtime.rest.RestSettings rest = load("floe.rest.port=0\n").rest();
        assertThat(rest.port()).isZero();
        assertThat(rest.bind()).isEqualTo("127.0.0.1");
        assertThat(rest.token()).isNull();
        assertThat(rest.writes()).isFalse();
        assertThat(rest.maxBodyBytes()).isEqualTo(16L << 20);
        assertThat(load("floe.rest.port=8181\nfloe.rest.writes=true\nfloe.rest.token=abc\n")
                        .rest())
                .extracting(r -> r.port(), r -> r.writes(), r -> r.token())
                .containsExactly(8181, true, "abc");
    }

    @Test
    void theRestTokenIsReadFromItsFile() throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "  from-the-file\n");
        assertThat(load("floe.rest.port=0\nfloe.rest.token-file=" + token + "\n")
                        .rest()
                        .token())
                .isEqualTo("from-the-file");
    }

    @Test
    void theTokenFileIsReadOnceAtStartAndEveryLoaderGetsItsToken() throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "first\n");
        AgentConfig atStart = load("floe.rest.port=0\nfloe.rest.token-file=" + token + "\n");
        // rotated, then removed, before a class loader's guard parses what the agent read
        Files.writeString(token, "second\n");
        Files.delete(token);
        AgentConfig inALoader = AgentConfig.parse(atStart.values(), atStart.source(), null);
        assertThat(inALoader.rest().token()).isEqualTo("first");
        assertThat(atStart.values()).doesNotContainKey("floe.rest.token-file");
    }

    @Test
    void aTokenFileIsNotReadWhileTheEndpointIsOff() throws Exception {
        assertThat(load("floe.rest.token-file=" + dir.resolve("absent") + "\n").rest())
                .isNull();
    }

    @Test
    void badRestValuesNameTheKeyAndTheFix() throws Exception {
        assertInvalid("floe.rest.port=http\n", "floe.rest.port is 'http'; expected a TCP port from 0 to 65535");
        assertInvalid("floe.rest.port=70000\n", "floe.rest.port is '70000'");
        assertInvalid(
                "floe.rest.port=0\nfloe.rest.bind=no-such-host.invalid\n", "floe.rest.bind is 'no-such-host.invalid'");
        assertInvalid("floe.rest.port=0\nfloe.rest.writes=yes\n", "floe.rest.writes is 'yes'; expected true or false");
        assertInvalid(
                "floe.rest.port=0\nfloe.rest.token=a\nfloe.rest.token-file=/t\n",
                "floe.rest.token and floe.rest.token-file are both set; set only one of them");
        assertInvalid(
                "floe.rest.port=0\nfloe.rest.token-file=" + dir.resolve("absent") + "\n",
                "floe.rest.token-file is '" + dir.resolve("absent") + "', which cannot be read");
        Path empty = dir.resolve("empty");
        Files.writeString(empty, "\n");
        assertInvalid("floe.rest.port=0\nfloe.rest.token-file=" + empty + "\n", "which is empty");
    }

    @Test
    void aRestEndpointOpenToOtherMachinesWithoutATokenIsAWarning() throws Exception {
        assertThat(load("floe.rest.port=0\nfloe.rest.bind=0.0.0.0\n").warnings())
                .singleElement()
                .asString()
                .contains("floe.rest.bind is 0.0.0.0")
                .contains("set floe.rest.token-file");
        assertThat(load("floe.rest.port=0\nfloe.rest.bind=0.0.0.0\nfloe.rest.token=t\n")
                        .warnings())
                .isEmpty();
    }

    @Test
    void theConfigurationPageListsEveryKeyInOrderWithItsDefaultAndNoOther() throws Exception {
        Map<String, String> rows = keyTableRows(Files.readString(Path.of("..", "docs", "configuration.md")));
        Map<String, String> expected = new LinkedHashMap<>();
        AgentConfig.KEYS.forEach(
                (key, value) -> expected.put(key, value[0].isEmpty() ? "(none)" : "`" + value[0] + "`"));
        assertThat(rows.keySet())
                .as("rows of docs/configuration.md for keys the agent does not have")
                .isSubsetOf(expected.keySet());
        assertThat(rows.keySet())
                .as("keys of docs/configuration.md, in the order of config-keys.tsv")
                .containsExactlyElementsOf(expected.keySet());
        assertThat(rows).as("defaults in docs/configuration.md").containsExactlyEntriesOf(expected);
    }

    /** Each row of docs/configuration.md's key table: the key, and its default cell as written. */
    private static Map<String, String> keyTableRows(String page) {
        List<String> lines = page.lines().toList();
        int header = lines.indexOf("| key | default | meaning |");
        assertThat(header).as("the key table's header in docs/configuration.md").isNotNegative();
        Pattern keyCell = Pattern.compile("`([^`]+)`");
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : lines.subList(header + 2, lines.size())) {
            if (!line.startsWith("|")) {
                break;
            }
            String[] cells = line.split("\\|", -1);
            Matcher key = keyCell.matcher(cells[1].trim());
            assertThat(key.matches()).as("a key in backticks: " + line).isTrue();
            assertThat(rows.put(key.group(1), cells[2].trim()))
                    .as("a second row for " + key.group(1))
                    .isNull();
        }
        return rows;
    }

    private void assertInvalid(String file, String message) {
        assertThatThrownBy(() -> load(file)).isInstanceOf(ConfigException.class).hasMessageContaining(message);
    }

    public static final class DropAll implements Prune {
        @Override
        public boolean drop(Record row) {
            return true;
        }
    }

    public static final class NoDefaultConstructor implements Prune {
        public NoDefaultConstructor(String unused) {}

        @Override
        public boolean drop(Record row) {
            return false;
        }
    }
}
