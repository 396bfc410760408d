package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.transcript.StorableText;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** What of a provider's error may be passed on: credentials never, and at most 1,000 characters. */
class ProviderErrorsTest {

    private static final String KEY = "vllm-local-key-2024";

    @Test
    void theConfiguredKeyIsRedactedWhereverItAppears() {
        assertThat(ProviderErrors.redact("Invalid key vllm-local-key-2024 (was vllm-local-key-2024)", KEY))
                .isEqualTo("Invalid key [redacted] (was [redacted])");
    }

    /**
     * Only the key exactly as configured was found: upper-cased, with a zero-width character inside or without its
     * {@code sk-} prefix it passed, and so did a key cut short.
     */
    @ParameterizedTest
    @ValueSource(strings = {
            "Invalid key SK-PROJ-ZQ81XK2LMN0PQR7STU4VWX9YAB3CDE.",
            "Invalid key sk-proj-Zq81xk2L\u200BmN0pQr7sTu4\u2060vWx9yAb3cDe.",
            "Invalid key Zq81xk2LmN0pQr7sTu4vWx9yAb3cDe.",
            "Invalid key proj-Zq81xk2LmN0p.",
            "Invalid key sk-proj-\uDB40\uDC41Zq81xk2LmN0pQr7sTu4vWx9yAb3cDe.",
    })
    void theConfiguredKeyIsFoundInAnyCaseWithInvisibleCharactersWithoutItsPrefixOrCutShort(String message) {
        assertThat(ProviderErrors.redact(message, "sk-proj-Zq81xk2LmN0pQr7sTu4vWx9yAb3cDe")).isEqualTo("Invalid key [redacted].");
    }

    @Test
    void aShortConfiguredKeyIsFoundWholeInAnyCase() {
        assertThat(ProviderErrors.redact("bad key LOCAL-KEY-1 (local-key-1)", "local-key-1")).isEqualTo("bad key [redacted] ([redacted])");
    }

    @Test
    void otherKeysAreFoundByTheirShapeInAnyCase() {
        assertThat(ProviderErrors.redact("key SK-ANT-API03-ABCDEFGH12345678 rejected", null)).isEqualTo("key [redacted] rejected");
        assertThat(ProviderErrors.redact("key AIZASYA1B2C3D4E5F6G7H8I9J0KLMNOPQ rejected", null)).isEqualTo("key [redacted] rejected");
        assertThat(ProviderErrors.redact("token QWERTY1234ASDFGH5678ZXCVB9012POIUYT3456 expired", null)).isEqualTo("token [redacted] expired");
        assertThat(ProviderErrors.redact("token qwerty1234asdfgh5678zxcvb9012poiuyt3456 expired", null)).isEqualTo("token [redacted] expired");
    }

    @Test
    void aKeyTooShortToLookForIsNotSearchedButItsShapeStillCounts() {
        assertThat(ProviderErrors.redact("abc is wrong", "abc")).isEqualTo("abc is wrong");
        assertThat(ProviderErrors.redact("nothing", null)).isEqualTo("nothing");
    }

    @Test
    void credentialsAreRedactedByTheirShape() {
        assertThat(ProviderErrors.redact("Incorrect API key provided: sk-proj-Ab12Cd34Ef56. You can find it at https://platform.openai.com", null))
                .isEqualTo("Incorrect API key provided: [redacted]. You can find it at https://platform.openai.com");
        assertThat(ProviderErrors.redact("key sk-or-v1-0123456789abcdef0123 rejected", null)).isEqualTo("key [redacted] rejected");
        assertThat(ProviderErrors.redact("API key not valid: AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", null))
                .isEqualTo("API key not valid: [redacted]");
        assertThat(ProviderErrors.redact("got Authorization: Bearer abc.DEF-123_xyz and bearer 0123456789", null))
                .isEqualTo("got Authorization: Bearer [redacted] and bearer [redacted]");
        assertThat(ProviderErrors.redact("Basic dXNlcjpwYXNzd29yZA== refused", null)).isEqualTo("Basic [redacted] refused");
        assertThat(ProviderErrors.redact("{\"x-goog-api-key\": \"hunter22\", \"api_key\":\"s3cret!\"} ?apikey=qwerty&password=pa55", null))
                .isEqualTo("{\"x-goog-api-key\": \"[redacted]\", \"api_key\":\"[redacted]\"} ?apikey=[redacted]&password=[redacted]");
        assertThat(ProviderErrors.redact("token 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 expired", null))
                .isEqualTo("token [redacted] expired");
        assertThat(ProviderErrors.redact("secret Zx9Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7/+Qw== leaked", null))
                .isEqualTo("secret [redacted] leaked");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "Rate limit reached for gpt-4o-mini in organization org-abc on tokens per min (TPM): Limit 30000, Used 29500.",
            "models/gemini-2.5-flash-preview-05-20 is not found for API version v1beta, or is not supported for generateContent.",
            "Please visit https://console.developers.google.com/apis/api/generativelanguage.googleapis.com/overview?project=123456789",
            "projects/my-project-123/locations/us-central1/publishers/google/models/gemini-2.0-flash-001 is unavailable",
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130012 tokens.",
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth",
            "the task-runner failed: disk-usage-exceeded",
    })
    void ordinaryProviderMessagesAreLeftAlone(String message) {
        assertThat(ProviderErrors.redact(message, KEY)).isEqualTo(message);
    }

    @Test
    void aFailureIsRedactedAndCutButKeepsItsCodeAndCause() {
        IllegalStateException cause = new IllegalStateException("boom");
        ProviderException failure = new ProviderException("provider_http_error",
                "The provider answered HTTP 401: bad key " + KEY + " " + "\uD83C\uDF75".repeat(600), cause);

        ProviderException safe = ProviderErrors.redacted(failure, KEY);

        assertThat(safe.code()).isEqualTo("provider_http_error");
        assertThat(safe.getCause()).isSameAs(cause);
        assertThat(safe.getMessage()).startsWith("The provider answered HTTP 401: bad key [redacted] \uD83C\uDF75")
                .doesNotContain(KEY).endsWith("…").hasSizeLessThanOrEqualTo(ProviderErrors.MAX_MESSAGE_CHARS + 1);
        assertThat(StorableText.firstBad(safe.getMessage())).as("no surrogate pair cut in half").isEqualTo(-1);
    }

    @Test
    void aFailureWithNothingToHideIsPassedOnAsItIs() {
        ProviderException failure = new ProviderException("provider_timeout", "The provider sent no response headers within 10 s");

        assertThat(ProviderErrors.redacted(failure, KEY)).isSameAs(failure);
    }

    @Test
    void anErrorBodyOfUnknownShapeIsCutWithoutSplittingASurrogatePair() {
        String body = "x".repeat(499) + "\uD83C\uDF75" + "tail";

        assertThat(ProviderErrors.fromBody(body, json -> null)).isEqualTo("x".repeat(499) + "…");
    }
}
