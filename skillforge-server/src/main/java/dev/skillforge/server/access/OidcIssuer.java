package dev.skillforge.server.access;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.JWSKeySelector;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.oauth2.sdk.GeneralException;
import com.nimbusds.oauth2.sdk.id.Issuer;
import com.nimbusds.openid.connect.sdk.op.OIDCProviderMetadata;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The team's OpenID Connect issuer as this server knows it: its discovery document, read once (again after a
 * failure), and its signing keys, cached and fetched again when a token names a key id not seen yet (an issuer
 * that rotates its keys). Only asymmetric signatures are accepted: a token signed with {@code none} or a shared
 * secret is refused whatever it says.
 */
final class OidcIssuer {

    /** Asymmetric JWS algorithms: what an issuer signs ID and access tokens with. */
    private static final Set<JWSAlgorithm> ASYMMETRIC = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
            JWSAlgorithm.PS256, JWSAlgorithm.PS384, JWSAlgorithm.PS512, JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512,
            JWSAlgorithm.EdDSA, JWSAlgorithm.Ed25519);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** How far the issuer's clock and ours may disagree on a token's times, for ID and access tokens alike. */
    static final int MAX_CLOCK_SKEW_SECONDS = 60;
    private static final int MAX_DOCUMENT_BYTES = 512 * 1024;

    private final URI url;
    private volatile Known known;

    /** The discovery document and the keys, once read. */
    record Known(OIDCProviderMetadata metadata, JWKSource<SecurityContext> keys, Set<JWSAlgorithm> algorithms) {
        /** The issuer's own name for itself: what {@code iss} must say. */
        String issuer() {
            return metadata.getIssuer().getValue();
        }

        JWSKeySelector<SecurityContext> keySelector() {
            return new JWSVerificationKeySelector<>(algorithms, keys);
        }
    }

    OidcIssuer(URI url) {
        this.url = url;
    }

    URI url() {
        return url;
    }

    /**
     * The issuer's metadata and keys.
     *
     * @throws IssuerUnreachable when its discovery document cannot be read or is not its own
     */
    Known known() {
        Known current = known;
        if (current != null) {
            return current;
        }
        synchronized (this) {
            if (known == null) {
                known = read();
            }
            return known;
        }
    }

    private Known read() {
        OIDCProviderMetadata metadata;
        try {
            metadata = OIDCProviderMetadata.resolve(new Issuer(url.toString()), (int) TIMEOUT.toMillis(), (int) TIMEOUT.toMillis());
        } catch (GeneralException | IOException e) {
            throw new IssuerUnreachable("the issuer " + url + " could not be read (" + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + ")", e);
        }
        if (metadata.getJWKSetURI() == null || metadata.getAuthorizationEndpointURI() == null || metadata.getTokenEndpointURI() == null) {
            throw new IssuerUnreachable("the issuer " + url + " names no key set, authorization or token endpoint in its discovery document",
                    null);
        }
        Set<JWSAlgorithm> algorithms = new HashSet<>(ASYMMETRIC);
        List<JWSAlgorithm> offered = metadata.getIDTokenJWSAlgs();
        if (offered != null) {
            algorithms.retainAll(Set.copyOf(offered));
        }
        if (algorithms.isEmpty()) {
            throw new IssuerUnreachable("the issuer " + url + " signs ID tokens only with " + offered + ", none of them asymmetric", null);
        }
        try {
            JWKSource<SecurityContext> keys = JWKSourceBuilder.<SecurityContext>create(metadata.getJWKSetURI().toURL(),
                            new DefaultResourceRetriever((int) TIMEOUT.toMillis(), (int) TIMEOUT.toMillis(), MAX_DOCUMENT_BYTES))
                    .retrying(true).build();
            return new Known(metadata, keys, Set.copyOf(algorithms));
        } catch (MalformedURLException e) {
            throw new IssuerUnreachable("the issuer " + url + " names a key set that is not a URL: " + metadata.getJWKSetURI(), e);
        }
    }

    /** The issuer cannot be used now: its discovery document could not be read, or says nothing usable. */
    static final class IssuerUnreachable extends RuntimeException {
        IssuerUnreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
