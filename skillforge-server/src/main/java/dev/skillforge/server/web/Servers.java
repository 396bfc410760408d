package dev.skillforge.server.web;

import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;

import java.util.function.Consumer;

/** How this project starts a Javalin (Jetty 12) server: virtual threads for blocking handlers, no banner. */
public final class Servers {

    private Servers() {
    }

    public static Javalin start(String host, int port, Consumer<JavalinConfig> routes) {
        return Javalin.create(config -> {
            config.concurrency.useVirtualThreads = true;
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = host;
            config.jetty.port = port;
            routes.accept(config);
        }).start();
    }
}
