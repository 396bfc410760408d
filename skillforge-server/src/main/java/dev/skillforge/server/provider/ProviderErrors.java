package dev.skillforge.server.provider;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.json.Json;

import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The provider's own words from its error answers, read the same way for every wire format (the
 * formats differ only in where the error sits in a body and which field qualifies its message), and
 * made safe to pass on: an error message is stored with its turn, streamed to every client and shown,
 * so a gateway that echoes the request's key must not leak it ({@link #redacted}).
 */
public final class ProviderErrors {

    /** How much of an error body that is not JSON of a known shape is kept as the message. */
    private static final int MAX_TEXT_CHARS = 500;
    /** The longest provider error message passed on; the rest is cut. */
    public static final int MAX_MESSAGE_CHARS = 1000;
    public static final String REDACTED = "[redacted]";
    /** A configured key shorter than this is not looked for verbatim (it would blank out ordinary words). */
    static final int MIN_KEY_CHARS = 4;

    /** Credentials by their shape; group 1 (the name or scheme before a credential) is kept, the rest replaced. */
    private static final Pattern[] KEY_SHAPES = {
            // an Authorization header's credentials
            Pattern.compile("(?i)\\b((?:bearer|basic)\\s+)[A-Za-z0-9._~+/=-]{8,}"),
            // a credential-named field or parameter: api_key=…, "x-goog-api-key": "…", password: …
            Pattern.compile("(?i)((?:api[_-]?key|access[_-]?token|client[_-]?secret|secret[_-]?key|password)[\"']?\\s*[:=]\\s*[\"']?)"
                    + "[^\\s\"'&,;]{4,}"),
            // vendor key prefixes, in any case: OpenAI, DeepSeek, Moonshot, OpenRouter and Anthropic keys (sk-…), Google API keys (AIza…)
            Pattern.compile("(?i)(?<![A-Za-z0-9])()(?:sk-[A-Za-z0-9_-]{8,}|AIza[A-Za-z0-9_-]{20,})"),
            // 32 or more hex digits: 128 bits and more, a secret or a digest of one
            Pattern.compile("(?<![A-Za-z0-9])()[0-9A-Fa-f]{32,}(?![A-Za-z0-9])"),
    };
    /**
     * A base64 or base64url run of 32+ characters; replaced only when it looks random: it mixes upper case, lower case
     * and digits, or it is letters and digits alone, both (a key upper-cased on its way); a path or a model name has
     * separators and one case.
     */
    private static final Pattern LONG_RUN = Pattern.compile("[A-Za-z0-9+/_-]{32,}=*");

    private ProviderErrors() {
    }

    /**
     * An error object or string in words: a string as it is; an object's {@code message}, then its
     * {@code qualifier} field in parentheses where it has one (OpenAI's {@code type}, Google's
     * {@code status}); an object without a message as its JSON.
     */
    public static String message(JsonNode error, String qualifier) {
        if (error.isTextual()) {
            return error.asText();
        }
        String message = Json.text(error, "message");
        if (message == null) {
            return Json.write(error);
        }
        String detail = Json.text(error, qualifier);
        return detail == null ? message : message + " (" + detail + ")";
    }

    /**
     * The message of an error body: what {@code fromJson} reads from it when it is JSON ({@code null}
     * for JSON of no shape it knows), otherwise the text itself, stripped and cut at 500 characters.
     */
    public static String fromBody(String body, Function<JsonNode, String> fromJson) {
        String text = body.strip();
        try {
            String message = fromJson.apply(Json.parse(text));
            if (message != null) {
                return message;
            }
        } catch (Exception notJson) {
            // fall through to the text itself
        }
        if (text.isEmpty()) {
            return "(no message)";
        }
        return StorableText.abbreviate(text, MAX_TEXT_CHARS);
    }

    /**
     * {@code failure} as it may be passed on: its message {@link #redact redacted} of {@code apiKey}
     * and of anything shaped like a credential, and cut to {@value #MAX_MESSAGE_CHARS} characters;
     * {@code failure} itself when there was nothing to change.
     */
    public static ProviderException redacted(ProviderException failure, String apiKey) {
        String message = failure.getMessage();
        String safe = StorableText.abbreviate(redact(message, apiKey), MAX_MESSAGE_CHARS);
        return safe.equals(message) ? failure : new ProviderException(failure.code(), safe, failure.getCause());
    }

    /**
     * {@code text} without invisible characters ({@link KeyPieces#visible}), and with every credential replaced by
     * {@value #REDACTED}: the configured key wherever it shows (when it has at least {@value #MIN_KEY_CHARS}
     * characters), in any case, without its prefix or cut short ({@link KeyPieces}); credentials of 8 or more
     * characters after {@code Bearer} or {@code Basic}; the value of a field named like a credential ({@code api_key},
     * {@code x-goog-api-key}, {@code access_token}, {@code client_secret}, {@code secret_key},
     * {@code password}); keys with a vendor prefix ({@code sk-…}, {@code AIza…}) in any case; runs of 32 or more
     * hex digits; and runs of 32 or more base64 characters that look random (both cases and digits, or letters and
     * digits alone). Words, URLs, model names and paths are left alone: none of them is such a run.
     */
    public static String redact(String text, String apiKey) {
        String redacted = KeyPieces.visible(text);
        if (apiKey != null && KeyPieces.visible(apiKey).length() >= MIN_KEY_CHARS) {
            redacted = new KeyPieces(apiKey).replaceIn(redacted, REDACTED);
        }
        for (Pattern shape : KEY_SHAPES) {
            redacted = shape.matcher(redacted).replaceAll("$1" + REDACTED);
        }
        return LONG_RUN.matcher(redacted).replaceAll(match -> Matcher.quoteReplacement(looksRandom(match.group()) ? REDACTED : match.group()));
    }

    private static boolean looksRandom(String run) {
        boolean digits = run.chars().anyMatch(Character::isDigit);
        boolean upper = run.chars().anyMatch(Character::isUpperCase);
        boolean lower = run.chars().anyMatch(Character::isLowerCase);
        return digits && (upper && lower || (upper || lower) && run.chars().allMatch(Character::isLetterOrDigit));
    }
}
