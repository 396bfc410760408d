package dev.skillforge.testkit;

/** Where a test sends its HTTP requests: one server ({@link ServerProcess}) or a balancer in front of several ({@link Nginx}). */
public interface HttpEndpoint {

    /** The full URL of {@code path} (which starts with {@code /}). */
    String url(String path);
}
