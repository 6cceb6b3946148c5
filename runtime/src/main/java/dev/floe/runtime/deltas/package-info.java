/**
 * What landed on the live table since a rebuild pinned it, rebased onto the rebuilt files through
 * the compaction map: appends carried, position deletes and deletion vectors translated, equality
 * deletes resolved. Internal: nothing outside the runtime uses this package.
 */
package dev.floe.runtime.deltas;
