package dev.floe.runtime.rest;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import org.apache.iceberg.rest.RESTSerializers;

/**
 * The JSON of Iceberg's REST model: an {@link ObjectMapper} set up as Iceberg's own
 * (package-private) {@code RESTObjectMapper} is, with Iceberg's {@link RESTSerializers}. Every
 * request and response body passes through it; floe writes no JSON of its own.
 */
final class RestJson {
    private static final ObjectMapper MAPPER = create();

    private RestJson() {}

    static ObjectMapper mapper() {
        return MAPPER;
    }

    private static ObjectMapper create() {
        JsonFactory factory = new JsonFactoryBuilder()
                .configure(JsonFactory.Feature.INTERN_FIELD_NAMES, false)
                .configure(JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW, false)
                .build();
        ObjectMapper mapper = new ObjectMapper(factory);
        mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
        mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        mapper.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
        RESTSerializers.registerAll(mapper);
        return mapper;
    }
}
