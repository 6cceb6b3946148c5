/**
 * The vocabulary every layer of the runtime shares, at the bottom of it: the one type a host
 * implements ({@link dev.floe.runtime.Prune}), a rebuild's settings and failures, a table's key,
 * its writer gate and the registry of the host's handles, and the test-only crash points.
 *
 * <p>The packages above, top first: {@code guard} (one commit, and the facade the agent calls),
 * {@code rebuild} (one rebuild), {@code deltas} and {@code upkeep}, {@code install}, {@code rows},
 * {@code seam}; {@code rest} beside {@code guard}. A class uses its own package and those below it
 * only ({@code PackageLayersTest}); docs/DESIGN.md, "Packages", says what each holds.
 */
package dev.floe.runtime;
