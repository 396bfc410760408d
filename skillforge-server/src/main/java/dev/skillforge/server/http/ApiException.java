package dev.skillforge.server.http;

/**
 * A request the server refuses, with the HTTP status, a short stable code and a message that says
 * what is wrong. Rendered as {@code {"error":{"code":…,"message":…}}}.
 */
public final class ApiException extends RuntimeException {

    private final int status;
    private final String code;

    public ApiException(int status, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
    }

    public static ApiException badRequest(String code, String message) {
        return new ApiException(400, code, message);
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }
}
