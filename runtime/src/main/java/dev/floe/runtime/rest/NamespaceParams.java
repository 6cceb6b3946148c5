package dev.floe.runtime.rest;

import java.util.Arrays;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.rest.RESTUtil;

/**
 * A namespace as the REST spec puts it in a request: levels joined by the unit separator, which a
 * path segment carries URL-encoded ({@code %1F}). floe's {@code /v1/config} names no other
 * separator, so clients use these. Parsed here rather than by {@code RESTUtil}, whose namespace
 * methods differ between the Iceberg versions the endpoint runs on (1.12 dropped the one-argument
 * forms 1.9 has).
 */
final class NamespaceParams {
    private static final String UNIT_SEPARATOR = "\u001f";
    private static final String ENCODED_SEPARATOR = "%1F";

    private NamespaceParams() {}

    /** The namespace of a path segment, each level URL-decoded. */
    static Namespace fromPath(String segment) {
        if (segment == null) {
            throw new IllegalArgumentException("Invalid namespace: null");
        }
        return Namespace.of(Arrays.stream(segment.split(ENCODED_SEPARATOR, -1))
                .map(RESTUtil::decodeString)
                .toArray(String[]::new));
    }

    /** The namespace of a query parameter (already decoded): empty when absent or blank. */
    static Namespace fromQuery(String parameter) {
        return parameter == null || parameter.isEmpty()
                ? Namespace.empty()
                : Namespace.of(parameter.split(UNIT_SEPARATOR, -1));
    }
}
