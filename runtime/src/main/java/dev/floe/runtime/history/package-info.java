/**
 * Old versions rewritten onto the rebuilt layout (seed 001's second half): a rebuild that keeps
 * history writes the kept snapshots older than {@code floe.history.rewrite-after} again over its own
 * files ({@link dev.floe.runtime.history.HistoryRewrite}), finding each version's rows through the
 * compaction maps of the rebuilds since it ({@link dev.floe.runtime.history.LayoutMap}). Internal:
 * nothing outside the runtime uses this package.
 */
package dev.floe.runtime.history;
