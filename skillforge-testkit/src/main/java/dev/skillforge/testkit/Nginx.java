package dev.skillforge.testkit;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Debian's nginx ({@code /usr/sbin/nginx}) as a round-robin load balancer in front of several server
 * instances on loopback ports: a child process in the foreground ({@code daemon off}), with its own
 * configuration, logs and temporary folders under one folder, configured as docs/commands-and-storage.md
 * tells operators (event streams unbuffered; a request refused by a stopping instance, 503, or not
 * reaching a dead one passes to the next). Each answer says which instance served it in the header
 * {@value #UPSTREAM_HEADER}.
 */
public final class Nginx implements HttpEndpoint, AutoCloseable {

    public static final String BINARY = "/usr/sbin/nginx";
    /** The header naming the instance ({@code 127.0.0.1:PORT}) that answered. */
    public static final String UPSTREAM_HEADER = "X-Upstream";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final Process process;
    private final int port;
    private final Path folder;

    private Nginx(Process process, int port, Path folder) {
        this.process = process;
        this.port = port;
        this.folder = folder;
    }

    /**
     * Starts nginx on a free loopback port in front of the instances on {@code upstreamPorts}, and waits until it listens.
     *
     * @param readTimeout how long nginx waits for an instance's next bytes (event streams send a ping every 250 ms)
     */
    public static Nginx start(Path folder, List<Integer> upstreamPorts, Duration readTimeout) throws IOException, InterruptedException {
        Files.createDirectories(folder.resolve("temp"));
        int port = ServerProcess.freePort();
        Path config = folder.resolve("nginx.conf");
        Files.writeString(config, configuration(folder, port, upstreamPorts, readTimeout), StandardCharsets.UTF_8);
        Process process = new ProcessBuilder(BINARY, "-p", folder.toString(), "-c", config.toString())
                .redirectErrorStream(true).redirectOutput(folder.resolve("stdout.log").toFile()).start();
        Nginx nginx = new Nginx(process, port, folder);
        nginx.awaitListening();
        return nginx;
    }

    /** The configuration: the part in the {@code http} block is what docs/commands-and-storage.md shows. */
    static String configuration(Path folder, int port, List<Integer> upstreamPorts, Duration readTimeout) {
        String temp = folder.resolve("temp").toString();
        String servers = upstreamPorts.stream().map(p -> "        server 127.0.0.1:" + p + " max_fails=1 fail_timeout=2s;")
                .collect(Collectors.joining("\n"));
        return """
                daemon off;
                master_process on;
                worker_processes 1;
                user %s;
                pid %s/nginx.pid;
                error_log %s/error.log info;
                events { worker_connections 1024; }
                http {
                    access_log %s/access.log;
                    client_body_temp_path %s/client_body;
                    proxy_temp_path %s/proxy;
                    fastcgi_temp_path %s/fastcgi;
                    uwsgi_temp_path %s/uwsgi;
                    scgi_temp_path %s/scgi;

                    upstream skillforge {
                %s
                    }
                    server {
                        listen 127.0.0.1:%d;
                        location / {
                            proxy_pass http://skillforge;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                            proxy_set_header Host $http_host;
                            proxy_buffering off;
                            proxy_cache off;
                            proxy_read_timeout %ds;
                            proxy_connect_timeout 2s;
                            proxy_next_upstream error timeout http_503 non_idempotent;
                            add_header %s $upstream_addr always;
                        }
                    }
                }
                """.formatted(System.getProperty("user.name"), folder, folder, folder, temp, temp, temp, temp, temp, servers, port,
                Math.max(1, readTimeout.toSeconds()), UPSTREAM_HEADER);
    }

    private void awaitListening() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("nginx exited with " + process.exitValue() + ": " + logs());
            }
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (ConnectException e) {
                Thread.sleep(50);
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("nginx did not listen within " + START_TIMEOUT + ": " + logs());
    }

    @Override
    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    /** Its error log and output, for failure messages. */
    public String logs() {
        StringBuilder text = new StringBuilder();
        for (String name : List.of("stdout.log", "error.log")) {
            try {
                text.append("\n[").append(name).append("]\n").append(Files.readString(folder.resolve(name), StandardCharsets.UTF_8));
            } catch (IOException e) {
                text.append("\n[").append(name).append(": ").append(e).append(']');
            }
        }
        return text.toString();
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: nginx's fast shutdown
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
