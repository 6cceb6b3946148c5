/**
 * One commit, and the facade the agent hands off to: {@link dev.floe.runtime.guard.Guard} (which
 * tables are guarded, the gate around each host commit, growth and the trigger), per-table state and
 * metrics (MBeans), the background thread, the host's catalog instances and what runs between
 * rebuilds ({@link dev.floe.runtime.guard.Maintenance}). The top of the runtime.
 */
package dev.floe.runtime.guard;
