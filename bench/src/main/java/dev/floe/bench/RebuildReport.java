package dev.floe.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * floe's report of one rebuild, as it logs it and as its MBean's {@code LastReport} gives it:
 * {@code floe: rebuilt db.events: 200 snapshots -> 1, ... rows 2000, bytes 123 -> 45, data files 40
 * -> 1, ... carried 3 in 3 files ... scratch=27ms stream=1485ms ... swap=29ms ...}. A value the
 * report does not state is "-1" (rows, bytes, files) or "" (carried files, snapshots).
 *
 * @param phases each phase's milliseconds ({@code stream=417ms}), in order
 */
record RebuildReport(
        String text,
        Map<String, Long> phases,
        String rows,
        String bytesBefore,
        String bytesAfter,
        String filesAfter,
        String carriedFiles,
        String snapshotsBefore) {
    private static final Pattern PHASE = Pattern.compile("(?<![\\w-])([\\w-]+)=(\\d+)ms");
    private static final Pattern ROWS = Pattern.compile("\\brows (\\d+)");
    private static final Pattern BYTES = Pattern.compile("\\bbytes (\\d+) -> (\\d+)");
    private static final Pattern FILES = Pattern.compile("\\bdata files (\\d+) -> (\\d+)");
    private static final Pattern CARRIED = Pattern.compile("carried (\\d+) in (\\d+) files");
    private static final Pattern SNAPSHOTS = Pattern.compile(": (\\d+) snapshots -> 1");

    static RebuildReport parse(String text) {
        Map<String, Long> phases = new LinkedHashMap<>();
        Matcher m = PHASE.matcher(text);
        while (m.find()) {
            phases.put(m.group(1), Long.parseLong(m.group(2)));
        }
        Matcher bytes = BYTES.matcher(text);
        boolean hasBytes = bytes.find();
        return new RebuildReport(
                text,
                phases,
                match(ROWS, text, 1, "-1"),
                hasBytes ? bytes.group(1) : "-1",
                hasBytes ? bytes.group(2) : "-1",
                match(FILES, text, 2, "-1"),
                match(CARRIED, text, 2, ""),
                match(SNAPSHOTS, text, 1, ""));
    }

    /** The sum of every phase's milliseconds. */
    long totalMs() {
        return phases.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The report as one RESULT value: in quotes, spaces as underscores. */
    String asValue() {
        return "\"" + text.replace(' ', '_') + "\"";
    }

    private static String match(Pattern pattern, String text, int group, String absent) {
        Matcher m = pattern.matcher(text);
        return m.find() ? m.group(group) : absent;
    }
}
