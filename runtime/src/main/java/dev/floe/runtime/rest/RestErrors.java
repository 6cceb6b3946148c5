package dev.floe.runtime.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.Map;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchIcebergTableException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.exceptions.UnprocessableEntityException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.responses.ErrorResponse;

/**
 * An exception as Iceberg's {@link ErrorResponse}: the HTTP codes are those of Iceberg's own test
 * adapter ({@code RESTCatalogAdapter}), whose error handlers on the client side turn them back into
 * the same exceptions; the type is the exception's simple name, and no stack trace is sent.
 */
final class RestErrors {
    private static final Map<Class<? extends Exception>, Integer> CODES = Map.ofEntries(
            Map.entry(IllegalArgumentException.class, 400),
            Map.entry(NumberFormatException.class, 400),
            Map.entry(ValidationException.class, 400),
            Map.entry(BadRequestException.class, 400),
            Map.entry(NamespaceNotEmptyException.class, 409),
            Map.entry(NotAuthorizedException.class, 401),
            Map.entry(ForbiddenException.class, 403),
            Map.entry(NoSuchNamespaceException.class, 404),
            Map.entry(NoSuchTableException.class, 404),
            Map.entry(NoSuchIcebergTableException.class, 404),
            Map.entry(UnsupportedOperationException.class, 406),
            Map.entry(AlreadyExistsException.class, 409),
            Map.entry(CommitFailedException.class, 409),
            Map.entry(UnprocessableEntityException.class, 422),
            Map.entry(ServiceUnavailableException.class, 503),
            Map.entry(CommitStateUnknownException.class, 500));

    private RestErrors() {}

    static ErrorResponse of(Exception e) {
        if (e instanceof BodyTooLarge) {
            return error(413, "PayloadTooLargeException", e.getMessage());
        }
        if (e instanceof JsonProcessingException) {
            return error(
                    400,
                    "BadRequestException",
                    "Malformed request body: " + ((JsonProcessingException) e).getOriginalMessage());
        }
        return error(CODES.getOrDefault(e.getClass(), 500), e.getClass().getSimpleName(), e.getMessage());
    }

    static ErrorResponse error(int code, String type, String message) {
        return ErrorResponse.builder()
                .responseCode(code)
                .withType(type)
                .withMessage(message)
                .build();
    }

    /** A request body past the endpoint's limit. */
    static final class BodyTooLarge extends RuntimeException {
        BodyTooLarge(long limit) {
            super("Request body is larger than the endpoint's limit of " + limit + " bytes");
        }
    }
}
