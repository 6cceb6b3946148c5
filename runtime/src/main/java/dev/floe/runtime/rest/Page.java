package dev.floe.runtime.rest;

import java.util.List;

/**
 * One page of a listing, paged as Iceberg's {@code CatalogHandlers} pages (the token is the index of
 * the page's first item), over a list floe filtered first.
 *
 * @param next the token of the next page, or null on the last one
 */
record Page<T>(List<T> items, String next) {
    /** The whole list when {@code pageSize} is null, else the page {@code pageToken} starts. */
    static <T> Page<T> of(List<T> all, String pageToken, String pageSize) {
        if (pageSize == null) {
            return new Page<>(all, null);
        }
        int size = Integer.parseInt(pageSize);
        if (size <= 0) {
            throw new IllegalArgumentException("Invalid page size: " + pageSize + ", expected a positive number");
        }
        int start = pageToken == null || pageToken.isEmpty() ? 0 : Integer.parseInt(pageToken);
        if (start < 0) {
            throw new IllegalArgumentException("Invalid page token: " + pageToken);
        }
        if (start >= all.size()) {
            return new Page<>(List.of(), null);
        }
        int end = Math.min(start + size, all.size());
        return new Page<>(all.subList(start, end), end >= all.size() ? null : String.valueOf(end));
    }
}
