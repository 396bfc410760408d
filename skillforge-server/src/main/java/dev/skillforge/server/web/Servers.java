package dev.skillforge.server.web;

import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.util.JavalinBindException;

import java.util.function.Consumer;

/** How this project starts a Javalin (Jetty 12) server: virtual threads for blocking handlers, no banner. */
public final class Servers {

    private Servers() {
    }

    /**
     * Creates and starts a server on {@code host:port} ({@code 0}: any free port).
     *
     * @throws PortInUseException when the address is taken (nothing is left running)
     */
    public static Javalin start(String host, int port, Consumer<JavalinConfig> routes) {
        Javalin app = Javalin.create(config -> {
            config.concurrency.useVirtualThreads = true;
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = host;
            config.jetty.port = port;
            routes.accept(config);
        });
        try {
            return app.start();
        } catch (JavalinBindException e) {
            app.stop(); // Jetty's threads and the half-made connector go too, so nothing keeps the JVM alive
            throw new PortInUseException(host, port, e);
        }
    }
}
