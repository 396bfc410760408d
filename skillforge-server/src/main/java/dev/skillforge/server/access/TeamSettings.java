package dev.skillforge.server.access;

import dev.skillforge.server.error.ConfigurationException;

import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A team server's settings: people sign in at an OpenID Connect issuer. Without {@code FORGE_OIDC_ISSUER} there
 * are none ({@link #from} answers empty) and the server has one person, as before.
 *
 * @param issuer             {@code FORGE_OIDC_ISSUER}: the issuer's URL (its discovery document is below it)
 * @param clientId           {@code FORGE_OIDC_CLIENT_ID}: this server's client at the issuer
 * @param clientSecret       {@code FORGE_OIDC_CLIENT_SECRET}: the client's secret, or {@code null} for a public client
 *                           (PKCE alone)
 * @param publicUrl          {@code FORGE_PUBLIC_URL}: the address people use, scheme and host (and port), no path
 * @param admins             {@code FORGE_ADMINS}: subjects and e-mail addresses (lower case) of the admins
 * @param defaultBudgetMicros {@code FORGE_MONTHLY_BUDGET_USD}: what a person without a budget of their own may spend a
 *                           month, in millionths of a dollar; empty for no limit
 * @param sessionLifetime    how long a sign-in lasts ({@code FORGE_SESSION_DAYS}, 14 by default)
 */
public record TeamSettings(URI issuer, String clientId, String clientSecret, URI publicUrl, Set<String> admins,
                           OptionalLong defaultBudgetMicros, Duration sessionLifetime) {

    public TeamSettings {
        admins = Set.copyOf(admins);
    }

    /** The address the issuer sends people back to. */
    public URI callback() {
        return publicUrl.resolve("/auth/callback");
    }

    /** This server's MCP endpoint: the audience an issuer's access token must name to be accepted there. */
    public String mcpResource() {
        return publicUrl.resolve("/mcp").toString();
    }

    /** Whether cookies must be {@code Secure}: the public address is https. */
    public boolean secure() {
        return publicUrl.getScheme().equals("https");
    }

    /** The settings of the environment, or empty when {@code FORGE_OIDC_ISSUER} is not set (one person). */
    public static Optional<TeamSettings> from(Map<String, String> env) {
        String issuer = value(env, "FORGE_OIDC_ISSUER");
        if (issuer == null) {
            for (String name : new String[] {"FORGE_OIDC_CLIENT_ID", "FORGE_OIDC_CLIENT_SECRET", "FORGE_ADMINS", "FORGE_MONTHLY_BUDGET_USD"}) {
                if (value(env, name) != null) {
                    throw new ConfigurationException(name + " is set but FORGE_OIDC_ISSUER is not: people sign in only at an issuer;"
                            + " set FORGE_OIDC_ISSUER too, or unset " + name);
                }
            }
            return Optional.empty();
        }
        if (value(env, "FORGE_API_TOKEN") != null) {
            throw new ConfigurationException("FORGE_API_TOKEN and FORGE_OIDC_ISSUER are both set: with an issuer every person signs in"
                    + " and scripts use personal access tokens (POST /api/tokens); one token for everyone would bypass that. Unset"
                    + " FORGE_API_TOKEN");
        }
        URI issuerUrl = url("FORGE_OIDC_ISSUER", issuer, true);
        String clientId = value(env, "FORGE_OIDC_CLIENT_ID");
        if (clientId == null) {
            throw new ConfigurationException("FORGE_OIDC_ISSUER is set but FORGE_OIDC_CLIENT_ID is not: register SkillForge as a client"
                    + " at the issuer (redirect URI: FORGE_PUBLIC_URL/auth/callback) and set its id");
        }
        String publicUrl = value(env, "FORGE_PUBLIC_URL");
        if (publicUrl == null) {
            throw new ConfigurationException("FORGE_OIDC_ISSUER is set but FORGE_PUBLIC_URL is not: set the address people use, e.g."
                    + " https://forge.example.org (the issuer sends them back to FORGE_PUBLIC_URL/auth/callback)");
        }
        URI address = url("FORGE_PUBLIC_URL", publicUrl, false);
        Set<String> admins = Arrays.stream(Optional.ofNullable(value(env, "FORGE_ADMINS")).orElse("").split(","))
                .map(String::strip).filter(s -> !s.isEmpty()).map(s -> s.contains("@") ? s.toLowerCase(Locale.ROOT) : s)
                .collect(Collectors.toUnmodifiableSet());
        OptionalLong budget = dollars(value(env, "FORGE_MONTHLY_BUDGET_USD"));
        long days = days(value(env, "FORGE_SESSION_DAYS"));
        return Optional.of(new TeamSettings(issuerUrl, clientId, value(env, "FORGE_OIDC_CLIENT_SECRET"), address, admins, budget,
                Duration.ofDays(days)));
    }

    /** A dollar amount as millionths of a dollar: at most 6 decimals, 0 to a million dollars. */
    public static OptionalLong dollars(String text) {
        if (text == null) {
            return OptionalLong.empty();
        }
        try {
            BigDecimal amount = new BigDecimal(text.strip());
            if (amount.signum() < 0 || amount.compareTo(BigDecimal.valueOf(1_000_000)) > 0 || amount.scale() > 6) {
                throw new NumberFormatException();
            }
            return OptionalLong.of(amount.movePointRight(6).longValueExact());
        } catch (NumberFormatException | ArithmeticException e) {
            throw new ConfigurationException("FORGE_MONTHLY_BUDGET_USD=" + text + " is not an amount of dollars from 0 to 1000000"
                    + " (at most 6 decimals), e.g. 25 or 12.50");
        }
    }

    private static long days(String text) {
        if (text == null) {
            return 14;
        }
        try {
            long days = Long.parseLong(text.strip());
            if (days >= 1 && days <= 365) {
                return days;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new ConfigurationException("FORGE_SESSION_DAYS=" + text + " is not a number of days from 1 to 365");
    }

    private static URI url(String name, String text, boolean pathAllowed) {
        try {
            URI uri = new URI(text.strip().replaceAll("/+$", ""));
            boolean web = "https".equals(uri.getScheme()) || "http".equals(uri.getScheme());
            boolean pathOk = pathAllowed || uri.getRawPath() == null || uri.getRawPath().isEmpty();
            if (web && uri.getHost() != null && uri.getRawQuery() == null && uri.getRawFragment() == null && uri.getRawUserInfo() == null
                    && pathOk) {
                return uri;
            }
        } catch (URISyntaxException e) {
            // said below
        }
        throw new ConfigurationException(name + "=" + text + " is not " + (pathAllowed ? "an http(s) URL" : "an http(s) address"
                + " without a path") + ", e.g. " + (pathAllowed ? "https://login.example.org/realms/team" : "https://forge.example.org"));
    }

    private static String value(Map<String, String> env, String name) {
        String value = env.get(name);
        return value == null || value.isBlank() ? null : value;
    }

    /** The settings with the client secret hidden, for logs. */
    @Override
    public String toString() {
        return "TeamSettings[issuer=" + issuer + ", clientId=" + clientId + ", clientSecret=" + (clientSecret == null ? "none" : "(set)")
                + ", publicUrl=" + publicUrl + ", admins=" + admins.size() + ", defaultBudgetMicros=" + defaultBudgetMicros
                + ", sessionLifetime=" + sessionLifetime + "]";
    }
}
