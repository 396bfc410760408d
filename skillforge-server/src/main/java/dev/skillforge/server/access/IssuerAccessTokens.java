package dev.skillforge.server.access;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import dev.skillforge.server.people.Person;
import dev.skillforge.server.store.PeopleStore;

import java.text.ParseException;
import java.time.InstantSource;
import java.util.Set;

/**
 * The issuer's access tokens, at the MCP endpoint: this server is an OAuth 2.1 resource server there (MCP's
 * authorization), so a client that signed a person in at the issuer calls it with the token it got. Accepted: a JWT
 * signed by one of the issuer's keys, naming the issuer ({@code iss}), this server's MCP address among its audiences
 * ({@code aud}: a token made for another resource is refused, never passed on), a subject, and not expired. Its person
 * is the one who signs in with that issuer and subject; one seen first this way is recorded as if signed in.
 * Issuers whose access tokens are not JWTs (opaque ones) are not supported.
 */
final class IssuerAccessTokens {

    private final TeamSettings settings;
    private final OidcIssuer issuer;
    private final PeopleStore people;
    private final InstantSource clock;

    IssuerAccessTokens(TeamSettings settings, OidcIssuer issuer, PeopleStore people, InstantSource clock) {
        this.settings = settings;
        this.issuer = issuer;
        this.people = people;
        this.clock = clock;
    }

    /**
     * The person {@code token} was issued for.
     *
     * @throws Refused saying why the token is not accepted
     */
    Person personOf(String token) {
        OidcIssuer.Known known = issuer.known();
        DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
        processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(new JOSEObjectType("at+jwt"), JOSEObjectType.JWT, null));
        processor.setJWSKeySelector(known.keySelector());
        DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(Set.of(settings.mcpResource()),
                new JWTClaimsSet.Builder().issuer(known.issuer()).build(), Set.of("sub", "exp"), null) {
            @Override
            protected java.util.Date currentTime() {
                return new java.util.Date(clock.millis());
            }
        };
        claims.setMaxClockSkew(OidcIssuer.MAX_CLOCK_SKEW_SECONDS);
        processor.setJWTClaimsSetVerifier(claims);
        JWTClaimsSet verified;
        try {
            verified = processor.process(token, null);
        } catch (ParseException e) {
            throw new Refused("it is not a JWT");
        } catch (BadJOSEException | JOSEException e) {
            throw new Refused(e.getMessage());
        }
        String subject = verified.getSubject();
        return people.person(known.issuer(), subject).orElseGet(() -> people.signedIn(known.issuer(), subject,
                stringClaim(verified, "name"), stringClaim(verified, "email"), Boolean.TRUE.equals(booleanClaim(verified)), clock.millis()));
    }

    private static String stringClaim(JWTClaimsSet claims, String name) {
        try {
            return claims.getStringClaim(name);
        } catch (ParseException e) {
            return null;
        }
    }

    private static Boolean booleanClaim(JWTClaimsSet claims) {
        try {
            return claims.getBooleanClaim("email_verified");
        } catch (ParseException e) {
            return null;
        }
    }

    /** A token this server does not accept, and why (for the log and the {@code WWW-Authenticate} error description). */
    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message, null, false, false);
        }
    }
}
