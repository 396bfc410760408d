package dev.skillforge.server.http;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Reading request bodies: exactly what was declared, and the limit. */
class RequestBodiesTest {

    @Test
    void aBodyOfDeclaredLengthIsNotReadPastItsEnd() {
        // Regression: the read after the last byte, only to find the end, is where Jetty's minimum data rate check
        // failed a small body with 408 after a few milliseconds' pause on a busy server.
        byte[] body = "{\"provider\":\"chat\"}".getBytes(StandardCharsets.UTF_8);

        assertThat(RequestBodies.readJsonObject(request(body, body.length), 64).path("provider").asText()).isEqualTo("chat");
    }

    @Test
    void aBodyOverTheLimitIs413WhateverItDeclares() {
        byte[] body = "{\"content\":\"0123456789\"}".getBytes(StandardCharsets.UTF_8);

        for (long declared : new long[]{body.length, -1}) {
            ApiException e = catchThrowableOfType(ApiException.class, () -> RequestBodies.readJsonObject(request(body, declared), 10));
            assertThat(e.status()).isEqualTo(413);
        }
    }

    @Test
    void malformedJsonIsDescribedWithoutTheParsersInternals() {
        assertThat(malformed("{bad")).isEqualTo("Malformed JSON at line 1, column 2: unexpected character 'b'");
        assertThat(malformed("{\"messages\": [")).startsWith("Malformed JSON").endsWith("it ends too early (a string, array or object is not closed)");
        assertThat(malformed("{\"a\": hello}")).endsWith("unknown word 'hello' (text must be in double quotes)");
        for (String body : new String[]{"{bad", "{\"a\": [1,}", "{\"a\" 1}", "nope"}) {
            assertThat(malformed(body)).doesNotContain("code ").doesNotContain("was expecting").doesNotContain("JsonToken").doesNotContain("Source");
        }
    }

    /**
     * 17.7 MB of empty objects held 546 MB as a tree (and 1.2 GB with the body's copies): the reader stops at the
     * token limit, so what reading it costs stays below what the largest honest body costs.
     */
    @Test
    void aBodyOfEmptyObjectsIsRefusedLongBeforeItsTreeOutgrowsAnHonestBody() {
        byte[] body = emptyObjects(17_700_000);

        ApiException refused = catchThrowableOfType(ApiException.class,
                () -> RequestBodies.readJsonObject(request(body, body.length), RequestBodies.MAX_UPLOAD_BODY_BYTES));

        assertThat(refused.status()).isEqualTo(413);
        assertThat(refused.code()).isEqualTo("body_too_large");
        assertThat(refused.getMessage()).isEqualTo("The request body is too large to read: it holds more than 500,000 values, keys and"
                + " brackets, the most one document may");
    }

    @Test
    void readingTheHostileBodyAllocatesLessThanTheLargestHonestOne() {
        byte[] hostile = emptyObjects(17_700_000);
        String base64 = "QUJD".repeat(13_600_000 / 4);
        byte[] honest = ("{\"content\":\"Read this.\",\"attachments\":[{\"name\":\"a.txt\",\"mediaType\":\"text/plain\",\"data\":\""
                + base64 + "\"}]}").getBytes(StandardCharsets.UTF_8);

        long hostileCost = allocatedBy(() -> catchThrowableOfType(ApiException.class,
                () -> RequestBodies.readJsonObject(request(hostile, hostile.length), RequestBodies.MAX_UPLOAD_BODY_BYTES)));
        long honestCost = allocatedBy(() -> RequestBodies.readJsonObject(request(honest, honest.length), RequestBodies.MAX_UPLOAD_BODY_BYTES));

        // Allocation is a bound on what a read can hold at its peak, and counted exactly, unlike the heap's use at a moment.
        assertThat(honestCost).as("the honest body: its 13.6 MB string while read and once kept").isLessThan(5L * honest.length);
        assertThat(hostileCost).as("the hostile body").isLessThan(honestCost);
    }

    @Test
    void onlyStrictUtf8IsRead() {
        byte[][] bad = {
                {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'}, // an overlong NUL
                {'{', '"', 'a', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'}, // a surrogate, encoded
                {'{', '"', 'a', '"', ':', '"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"', '}'}, // past U+10FFFF
        };
        for (byte[] body : bad) {
            ApiException e = catchThrowableOfType(ApiException.class, () -> RequestBodies.readJsonObject(request(body, body.length), 1024));
            assertThat(e.code()).isEqualTo("invalid_encoding");
        }
    }

    @Test
    void moreAfterTheObjectAndNestingPastTheLimitAreRefusedInWords() {
        assertThat(malformed("{\"title\":\"a\"} {\"title\":\"b\"}")).isEqualTo("Malformed JSON at line 1, column 15: more follows the JSON"
                + " value (send one value)");
        assertThat(malformed("{\"a\":" + "[".repeat(250) + "]".repeat(250) + "}")).endsWith("arrays and objects nest more than 200 deep");
    }

    private static byte[] emptyObjects(int size) {
        StringBuilder json = new StringBuilder(size + 64).append("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"x\":[");
        while (json.length() < size) {
            json.append("{},");
        }
        return json.append("{}]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The bytes the current thread allocated while {@code work} ran. */
    private static long allocatedBy(Runnable work) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        work.run();
        return threads.getCurrentThreadAllocatedBytes() - before;
    }

    private static String malformed(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return catchThrowableOfType(ApiException.class, () -> RequestBodies.readJsonObject(request(bytes, bytes.length), 1024)).getMessage();
    }

    /** A request whose body stream fails any read past {@code body}'s end unless nothing was declared. */
    private static HttpServletRequest request(byte[] body, long declared) {
        ServletInputStream in = new ServletInputStream() {
            private int at;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] into, int offset, int length) throws IOException {
                if (length == 0) {
                    return 0;
                }
                if (at == body.length) {
                    if (declared >= 0) {
                        throw new IOException("read past the declared length");
                    }
                    return -1;
                }
                int n = Math.min(length, body.length - at);
                System.arraycopy(body, at, into, offset, n);
                at += n;
                return n;
            }

            @Override
            public boolean isFinished() {
                return at == body.length;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                throw new UnsupportedOperationException();
            }
        };
        return (HttpServletRequest) Proxy.newProxyInstance(RequestBodiesTest.class.getClassLoader(), new Class<?>[]{HttpServletRequest.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getContentLengthLong" -> declared;
                    case "getInputStream" -> in;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
