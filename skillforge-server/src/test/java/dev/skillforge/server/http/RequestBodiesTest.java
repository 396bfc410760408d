package dev.skillforge.server.http;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
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
