/**
 * The part of a rebuild that depends on the catalog: where the rebuilt files go (a scratch table, or
 * the live table's location), the rebuilt snapshot over pre-written manifests with the writers'
 * markers, and the install (a swap in floe's catalog, or one commit in place), or the discard of an
 * attempt that ends before it. Internal: nothing outside the runtime uses this package.
 */
package dev.floe.runtime.install;
