package dev.skillforge.bench.load;

import dev.skillforge.testkit.Nginx;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The load benchmark's floor for a relay: Debian's nginx, a gateway of the best class, passing the direct
 * calls through to the paced upstream unbuffered ({@code --peer nginx}). It parses, stores and checks
 * nothing, so its CPU per turn and the time it adds are what relaying a turn's two streams costs on this
 * machine, through its kernel, at the least. One process ({@code master_process off}): its CPU is that
 * process's; {@code GET /healthz} answers 200, so it is started and timed like the servers.
 */
final class NginxRelay {

    private NginxRelay() {
    }

    /** The relay's process, not started, listening on {@code port}: it prints nothing, the caller knows the port. */
    static ProcessBuilder process(Path folder, int port, int upstream) throws IOException {
        Files.createDirectories(folder.resolve("temp"));
        Path config = folder.resolve("nginx.conf");
        Files.writeString(config, configuration(folder, port, upstream), StandardCharsets.UTF_8);
        return new ProcessBuilder(Nginx.BINARY, "-p", folder.toString(), "-c", config.toString());
    }

    /** Keep-alive both ways (as the servers keep their provider connections), no access log, no buffering of streams. */
    private static String configuration(Path folder, int port, int upstream) {
        String temp = folder.resolve("temp").toString();
        return """
                daemon off;
                master_process off;
                worker_processes 1;
                worker_rlimit_nofile 8192;
                pid %s/nginx.pid;
                error_log %s/error.log warn;
                events { worker_connections 4096; }
                http {
                    access_log off;
                    client_body_temp_path %s/client_body;
                    proxy_temp_path %s/proxy;
                    fastcgi_temp_path %s/fastcgi;
                    uwsgi_temp_path %s/uwsgi;
                    scgi_temp_path %s/scgi;
                    keepalive_requests 100000;

                    upstream model {
                        server 127.0.0.1:%d;
                        keepalive 1024;
                        keepalive_requests 100000;
                    }
                    server {
                        listen 127.0.0.1:%d backlog=4096;
                        location = /healthz {
                            return 200 "ok\\n";
                        }
                        location / {
                            proxy_pass http://model;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                            proxy_buffering off;
                            proxy_read_timeout 60s;
                        }
                    }
                }
                """.formatted(folder, folder, temp, temp, temp, temp, temp, upstream, port);
    }
}
