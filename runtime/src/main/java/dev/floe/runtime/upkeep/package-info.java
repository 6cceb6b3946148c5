/**
 * What keeps a guarded table small between rebuilds and after them: the manifest merge, the
 * metadata history trim, reclaim of retired files (by reference, after the grace window), and
 * recovery of what a crashed rebuild left.
 */
package dev.floe.runtime.upkeep;
