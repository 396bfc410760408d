package dev.skillforge.server.http;

import java.util.List;

/**
 * A request the server refuses, with the HTTP status, a short stable code and a message that says
 * what is wrong. Rendered as {@code {"error":{"code":…,"message":…}}}, with {@code "problems"} (each
 * problem on its own) when there are several things to fix.
 */
public final class ApiException extends RuntimeException {

    private final int status;
    private final String code;
    private final List<String> problems;

    public ApiException(int status, String code, String message) {
        this(status, code, message, List.of());
    }

    /** @param problems each problem on its own (the message says them all), or none */
    public ApiException(int status, String code, String message, List<String> problems) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.problems = List.copyOf(problems);
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

    /** Each problem on its own, or empty. */
    public List<String> problems() {
        return problems;
    }
}
