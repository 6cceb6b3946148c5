package dev.floe.runtime.guard;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Which tables are guarded: globs over {@code namespace.table}, where {@code *} matches any run of
 * characters and {@code ?} one character. A table of floe's embedded catalog is guarded when a glob
 * matches its name, or when there are no globs. A table of a shared catalog only when a glob names
 * it ({@link #names}): as {@code namespace.table}, or as {@code catalog.namespace.table} with its
 * catalog's name first, which tells two catalogs with tables of one name apart.
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

    /** True when there are no globs. */
    public boolean isEmpty() {
        return patterns.isEmpty();
    }

    /**
     * True when a glob matches {@code table} of the shared catalog named {@code catalog}, by its name
     * or by its name after the catalog's; never when there are no globs.
     */
    public boolean names(String catalog, TableIdentifier table) {
        String name = table.toString();
        String qualified = catalog + "." + name;
        return patterns.stream()
                .anyMatch(p -> p.matcher(name).matches() || p.matcher(qualified).matches());
    }

    public boolean matches(TableIdentifier table) {
        if (patterns.isEmpty()) {
            return true;
        }
        String name = table.toString();
        return patterns.stream().anyMatch(p -> p.matcher(name).matches());
    }
}
