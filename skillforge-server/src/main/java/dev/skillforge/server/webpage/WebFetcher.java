package dev.skillforge.server.webpage;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.document.DocumentException;
import dev.skillforge.server.document.Documents;
import dev.skillforge.server.document.HtmlPage;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;

import java.io.IOException;
import java.io.InputStream;
import java.net.IDN;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fetches a web page for {@code web get} and turns it into readable Markdown. What it refuses: any scheme but
 * http and https, user names in the address, hosts not on the operator's list, and, after DNS resolution,
 * every address that is not public ({@link AddressGuard}) — the addresses checked are the ones connected to
 * (Jetty's client asks this class to resolve names), for the first request and for every redirect. Limits: five
 * redirects, {@value #MAX_BYTES} bytes, {@value #TIMEOUT_SECONDS} s for the whole chain.
 */
public final class WebFetcher implements AutoCloseable {

    static final int MAX_BYTES = 2 * 1024 * 1024;
    static final int MAX_REDIRECTS = 5;
    static final long TIMEOUT_SECONDS = 15;
    static final int MAX_TEXT_CHARS = 400_000;

    /** A fetched page: where it ended up (after redirects), its title, and its text as Markdown. */
    public record Page(String url, String title, String markdown) {
    }

    /** A page that could not be fetched; the message says why, for the model and the person. */
    public static final class FetchException extends Exception {
        FetchException(String message) {
            super(message, null, false, false);
        }
    }

    private final WebSettings settings;
    private final HttpClient client;
    private final long timeoutSeconds;

    public WebFetcher(WebSettings settings) {
        this(settings, TIMEOUT_SECONDS);
    }

    /** @param timeoutSeconds for the whole redirect chain, body included (tests shorten it) */
    WebFetcher(WebSettings settings, long timeoutSeconds) {
        this.settings = settings;
        this.timeoutSeconds = timeoutSeconds;
        this.client = new HttpClient();
        client.setFollowRedirects(false); // each hop is checked here
        client.setConnectTimeout(5_000);
        client.setSocketAddressResolver(new CheckedResolver());
        client.setUserAgentField(new org.eclipse.jetty.http.HttpField(HttpHeader.USER_AGENT, "SkillForge web get"));
        client.setMaxConnectionsPerDestination(4);
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("The web fetcher's HTTP client did not start", e);
        }
    }

    /**
     * The page at {@code address}, as readable text within the limits of an attached HTML file.
     *
     * @param cancellation stops the reading of the page's text when the turn is stopped
     */
    public Page fetch(String address, Cancellation cancellation) throws FetchException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        URI uri = check(address);
        for (int hop = 0; ; hop++) {
            Request request = client.newRequest(uri).timeout(remainingMillis(deadline), TimeUnit.MILLISECONDS)
                    .headers(h -> h.put(HttpHeader.ACCEPT, "text/html, application/xhtml+xml, text/plain;q=0.9, text/markdown;q=0.9"));
            InputStreamResponseListener listener = new InputStreamResponseListener();
            request.send(listener);
            Response response;
            try {
                response = listener.get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                request.abort(e);
                throw new FetchException(uri + " did not answer within " + timeoutSeconds + " s");
            } catch (ExecutionException e) {
                throw new FetchException("Could not fetch " + uri + ": " + reason(e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                request.abort(e);
                throw new FetchException("The fetch of " + uri + " was stopped");
            }
            int status = response.getStatus();
            if (status >= 300 && status < 400 && response.getHeaders().get(HttpHeader.LOCATION) != null) {
                request.abort(new IOException("redirected"));
                if (hop >= MAX_REDIRECTS) {
                    throw new FetchException(address + " redirects more than " + MAX_REDIRECTS + " times");
                }
                uri = check(redirectTarget(uri, response.getHeaders().get(HttpHeader.LOCATION)));
                continue;
            }
            if (status != 200) {
                request.abort(new IOException("status " + status));
                throw new FetchException(uri + " answered HTTP " + status);
            }
            String type = response.getHeaders().get(HttpHeader.CONTENT_TYPE);
            String mediaType = type == null ? "" : type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
            boolean html = mediaType.equals("text/html") || mediaType.equals("application/xhtml+xml");
            if (!html && !mediaType.startsWith("text/")) {
                request.abort(new IOException("type"));
                throw new FetchException(uri + " is " + (mediaType.isEmpty() ? "of no declared type" : mediaType)
                        + ", not a page web get reads (HTML or text)");
            }
            byte[] body = readLimited(listener.getInputStream(), request, uri, deadline);
            return page(uri, type, html, body, cancellation);
        }
    }

    private static Page page(URI uri, String contentType, boolean html, byte[] body, Cancellation cancellation) throws FetchException {
        if (!html) {
            String text = StorableText.clean(new String(body, charset(contentType)));
            if (text.length() > MAX_TEXT_CHARS) {
                throw new FetchException(uri + " holds more than " + MAX_TEXT_CHARS + " characters of text");
            }
            return new Page(uri.toString(), "", text.strip());
        }
        try {
            HtmlPage page = Documents.readPage(new String(body, charset(contentType)), uri.toString(), MAX_TEXT_CHARS, cancellation);
            return new Page(uri.toString(), StorableText.clean(page.title()), StorableText.clean(page.markdown()));
        } catch (DocumentException refused) {
            throw new FetchException(refused.getMessage());
        }
    }

    private static Charset charset(String contentType) {
        if (contentType != null) {
            for (String part : contentType.split(";")) {
                String p = part.strip();
                if (p.toLowerCase(Locale.ROOT).startsWith("charset=")) {
                    try {
                        return Charset.forName(p.substring(8).replace("\"", "").strip());
                    } catch (RuntimeException unknown) {
                        break;
                    }
                }
            }
        }
        return StandardCharsets.UTF_8;
    }

    private byte[] readLimited(InputStream in, Request request, URI uri, long deadline) throws FetchException {
        try (in) {
            byte[] bytes = in.readNBytes(MAX_BYTES + 1);
            if (bytes.length > MAX_BYTES) {
                request.abort(new IOException("too large"));
                throw new FetchException(uri + " is larger than " + MAX_BYTES / (1024 * 1024) + " MiB");
            }
            return bytes;
        } catch (IOException e) {
            // The request's own total timeout (a TimeoutException underneath) may fire a millisecond before the
            // deadline by this clock: it is the same limit, said the same way.
            throw new FetchException(System.nanoTime() - deadline > 0 || causedByTimeout(e)
                    ? uri + " did not arrive within " + timeoutSeconds + " s" : "Could not read " + uri + ": " + reason(e));
        }
    }

    private static boolean causedByTimeout(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** Where a redirect leads: its {@code Location}, relative to the page that sent it. */
    private static String redirectTarget(URI from, String location) throws FetchException {
        try {
            return from.resolve(new URI(location.strip())).toString();
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new FetchException(from + " redirects to '" + StorableText.abbreviate(location, 100) + "', which is not a valid address");
        }
    }

    /** The address, if web get may fetch it: http(s), no user name, a host on the list (the addresses are checked on connecting). */
    private URI check(String address) throws FetchException {
        URI uri;
        try {
            uri = new URI(address.strip());
        } catch (URISyntaxException e) {
            throw new FetchException("'" + StorableText.abbreviate(address, 100) + "' is not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new FetchException("web get fetches http and https pages only, not " + (scheme.isEmpty() ? "'" + address + "'" : scheme + ":"));
        }
        if (uri.getRawUserInfo() != null) {
            throw new FetchException("web get does not send user names or passwords in the address");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new FetchException("'" + StorableText.abbreviate(address, 100) + "' names no host");
        }
        if (uri.getPort() == 0 || uri.getPort() > 65535) {
            throw new FetchException("'" + StorableText.abbreviate(address, 100) + "' names port " + uri.getPort() + ", which does not exist");
        }
        String host = hostName(uri);
        if (!settings.allowsHost(host)) {
            throw new FetchException(host + " is not on this server's list of sites web get may read (FORGE_WEB_HOSTS)");
        }
        try {
            // Checked here for a clear answer before anything is sent; checked again on connecting (CheckedResolver),
            // on the addresses actually used, so a name that resolves differently the second time gains nothing.
            checkedAddresses(uri.getHost(), uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80);
        } catch (UnknownHostException e) {
            throw new FetchException("Could not fetch " + uri + ": " + e.getMessage());
        }
        return uri;
    }

    private static String hostName(URI uri) throws FetchException {
        String host = uri.getHost();
        if (host.startsWith("[")) {
            return host.substring(1, host.length() - 1).toLowerCase(Locale.ROOT);
        }
        try {
            return IDN.toASCII(host).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            throw new FetchException("'" + host + "' is not a valid host name");
        }
    }

    private long remainingMillis(long deadline) throws FetchException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
            throw new FetchException("web get took longer than " + timeoutSeconds + " s");
        }
        return left;
    }

    private static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return StorableText.abbreviate(message, 200);
    }

    /** Resolves names for the client and hands it only addresses that pass the guard; any refused one fails the request. */
    private final class CheckedResolver implements SocketAddressResolver {
        @Override
        public void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
            try {
                promise.succeeded(checkedAddresses(host, port));
            } catch (UnknownHostException e) {
                promise.failed(e);
            } catch (RuntimeException e) {
                promise.failed(e);
            }
        }
    }

    /** The addresses {@code host} resolves to, all of them allowed, or an exception that says which one is not. */
    private List<InetSocketAddress> checkedAddresses(String host, int port) throws UnknownHostException {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new UnknownHostException("the name " + host + " does not resolve");
        }
        List<InetSocketAddress> allowed = new ArrayList<>();
        for (InetAddress address : addresses) {
            String refusal = AddressGuard.refusal(address);
            boolean testLoopback = settings.loopbackPort() != 0 && port == settings.loopbackPort()
                    && address.getHostAddress().equals("127.0.0.1");
            if (refusal != null && !testLoopback) {
                throw new UnknownHostException(host + " resolves to " + address.getHostAddress() + ", " + refusal
                        + ": web get reads public pages only");
            }
            allowed.add(new InetSocketAddress(address, port));
        }
        return allowed;
    }

    @Override
    public void close() {
        try {
            client.stop();
        } catch (Exception e) {
            // stopping: nothing to do about it
        }
    }
}
