package dev.floe.catalog;

/**
 * One entry of a durable section to write or remove in the same transaction as a swap, so that
 * whatever a caller records about the swap (a reclaim job, say) exists exactly when the swap does.
 *
 * @param value the new value, or null to remove the entry
 */
public record DurableChange(String section, String key, String value) {
    public static DurableChange put(String section, String key, String value) {
        if (value == null) {
            throw new IllegalArgumentException("A durable entry needs a value; use remove() to delete one");
        }
        return new DurableChange(section, key, value);
    }

    public static DurableChange remove(String section, String key) {
        return new DurableChange(section, key, null);
    }
}
