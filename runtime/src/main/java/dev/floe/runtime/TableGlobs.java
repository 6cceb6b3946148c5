package dev.floe.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Which tables are guarded: globs over {@code namespace.table}, where {@code *} matches any run of
 * characters and {@code ?} one character. No globs means every table.
 */
public final class TableGlobs {
    private final List<Pattern> patterns = new ArrayList<>();

    public TableGlobs(List<String> globs) {
        for (String glob : globs) {
            patterns.add(pattern(glob));
        }
    }

    /** The regular expression of one glob: {@code *} any run of characters, {@code ?} one. */
    static Pattern pattern(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char c : glob.toCharArray()) {
            if (c == '*') {
                regex.append(".*");
            } else if (c == '?') {
                regex.append('.');
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }

    public boolean matches(TableIdentifier table) {
        if (patterns.isEmpty()) {
            return true;
        }
        String name = table.toString();
        return patterns.stream().anyMatch(p -> p.matcher(name).matches());
    }
}
