/**
 * Rows in and out: reading a table's files by field id with their deletes applied, opened only when
 * their rows are reached, and the rolling ZSTD Parquet writer that makes a rebuild's files. Internal:
 * nothing outside the runtime uses this package.
 */
package dev.floe.runtime.rows;
