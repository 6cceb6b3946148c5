/**
 * One rebuild: {@link dev.floe.runtime.rebuild.Compactor} makes {@link
 * dev.floe.runtime.rebuild.RebuildAttempt}s, whose methods are the steps of docs/DESIGN.md's rebuild
 * flow in order; the planner and its size tiers, the race watch while rows stream, the report.
 */
package dev.floe.runtime.rebuild;
