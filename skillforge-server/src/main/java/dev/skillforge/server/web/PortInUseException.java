package dev.skillforge.server.web;

/** The address a server was asked to listen on is taken by another program. */
public final class PortInUseException extends RuntimeException {

    private final String host;
    private final int port;

    PortInUseException(String host, int port, Throwable cause) {
        super(host + ":" + port + " is already in use by another program", cause);
        this.host = host;
        this.port = port;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }
}
