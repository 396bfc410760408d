package dev.skillforge.bench.load;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection on a blocking socket, for a virtual thread: the load client's
 * own minimal client (a request, then its body read line by line, chunked or by length), so the
 * harness spends little CPU and no selector thread sits between the server and the measurement.
 */
final class Http1Connection implements AutoCloseable {

    private final String host;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    /** Bytes of the current chunk (or of a length-delimited body) not read yet; -1 once the body ended. */
    private long left;
    private boolean chunked;

    Http1Connection(int port) throws IOException {
        this.host = "127.0.0.1:" + port;
        this.socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(120_000);
        this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        this.out = socket.getOutputStream();
    }

    /** Sends a POST with a JSON body and reads the response head; returns the status. Read the body with {@link #nextLine()}. */
    int post(String path, String json, boolean events) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return send("POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n"
                + (events ? "Accept: text/event-stream\r\n" : "") + "Content-Length: " + body.length + "\r\n\r\n", body);
    }

    /** Sends a GET and reads the response head; returns the status. */
    int get(String path) throws IOException {
        return send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n", new byte[0]);
    }

    private int send(String head, byte[] body) throws IOException {
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        String status = readHeadLine();
        if (status == null || !status.startsWith("HTTP/1.1 ")) {
            throw new IOException("no HTTP response: " + status);
        }
        chunked = false;
        left = 0;
        String header;
        while ((header = readHeadLine()) != null && !header.isEmpty()) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            } else if (lower.startsWith("content-length:")) {
                left = Long.parseLong(lower.substring(15).strip());
            }
        }
        if (!chunked && left == 0) {
            left = -1;
        }
        return Integer.parseInt(status.substring(9, 12));
    }

    /** The next line of the body (UTF-8, without its LF or CRLF), or {@code null} at the body's end. */
    String nextLine() throws IOException {
        line.reset();
        int b;
        while ((b = bodyByte()) >= 0) {
            if (b == '\n') {
                return text();
            }
            line.write(b);
        }
        return line.size() > 0 ? text() : null;
    }

    /** Reads the rest of the body, so the connection can carry the next request. */
    void drain() throws IOException {
        while (bodyByte() >= 0) {
            // skipped
        }
    }

    private String text() {
        int size = line.size();
        byte[] bytes = line.toByteArray();
        return new String(bytes, 0, size > 0 && bytes[size - 1] == '\r' ? size - 1 : size, StandardCharsets.UTF_8);
    }

    private int bodyByte() throws IOException {
        if (left < 0) {
            return -1;
        }
        if (left == 0) {
            if (!chunked) {
                left = -1;
                return -1;
            }
            String size = readHeadLine();
            if (size != null && size.isEmpty()) {
                size = readHeadLine(); // the CRLF that ends the previous chunk
            }
            if (size == null) {
                throw new IOException("connection closed inside a chunked body");
            }
            int semicolon = size.indexOf(';');
            left = Long.parseLong(semicolon < 0 ? size.strip() : size.substring(0, semicolon).strip(), 16);
            if (left == 0) {
                readHeadLine(); // the empty trailer
                left = -1;
                return -1;
            }
        }
        int b = in.read();
        if (b < 0) {
            throw new IOException("connection closed inside a body");
        }
        left--;
        return b;
    }

    private String readHeadLine() throws IOException {
        StringBuilder text = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                int end = text.length();
                return end > 0 && text.charAt(end - 1) == '\r' ? text.substring(0, end - 1) : text.toString();
            }
            text.append((char) b);
        }
        return text.isEmpty() ? null : text.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
