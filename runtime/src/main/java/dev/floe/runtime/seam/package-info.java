/**
 * What the runtime needs of a catalog ({@link dev.floe.runtime.seam.RebuildCatalog}: floe's own
 * catalog, or any other Iceberg catalog), floe's durable records (rebuild journals, reclaim jobs) and
 * the by-reference rule every deletion follows.
 */
package dev.floe.runtime.seam;
