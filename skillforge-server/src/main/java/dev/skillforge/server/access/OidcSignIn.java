package dev.skillforge.server.access;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jwt.JWT;
import com.nimbusds.oauth2.sdk.AuthorizationCode;
import com.nimbusds.oauth2.sdk.AuthorizationCodeGrant;
import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.ResponseType;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.id.Issuer;
import com.nimbusds.oauth2.sdk.id.State;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import com.nimbusds.openid.connect.sdk.AuthenticationErrorResponse;
import com.nimbusds.openid.connect.sdk.AuthenticationRequest;
import com.nimbusds.openid.connect.sdk.AuthenticationResponse;
import com.nimbusds.openid.connect.sdk.AuthenticationResponseParser;
import com.nimbusds.openid.connect.sdk.Nonce;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponse;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponseParser;
import com.nimbusds.openid.connect.sdk.claims.IDTokenClaimsSet;
import com.nimbusds.openid.connect.sdk.validators.IDTokenValidator;
import dev.skillforge.server.people.Person;
import dev.skillforge.server.store.PeopleStore;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

/**
 * Signing in at the issuer: the authorization code flow of OpenID Connect with PKCE ({@code S256}), {@code state}
 * and {@code nonce}. {@link #start} saves what the answer must match (in the database, so the issuer may send the
 * browser back to any instance) and names where to send the browser; {@link #finish} takes the issuer's answer,
 * exchanges its code, and checks the ID token's signature against the issuer's keys, its issuer, audience, expiry
 * and nonce (Nimbus's validator), before the person is recorded as signed in.
 */
final class OidcSignIn {

    /** How long a sign-in may take between leaving for the issuer and coming back. */
    static final Duration ATTEMPT_LIFETIME = Duration.ofMinutes(10);
    private static final int TIMEOUT_MILLIS = 10_000;

    private final TeamSettings settings;
    private final OidcIssuer issuer;
    private final PeopleStore people;
    private final InstantSource clock;

    OidcSignIn(TeamSettings settings, OidcIssuer issuer, PeopleStore people, InstantSource clock) {
        this.settings = settings;
        this.issuer = issuer;
        this.people = people;
        this.clock = clock;
    }

    /** Where to send the browser to sign in; the attempt is saved until it comes back. */
    URI start() {
        OidcIssuer.Known known = issuer.known();
        State state = new State();
        Nonce nonce = new Nonce();
        CodeVerifier verifier = new CodeVerifier();
        people.addSignIn(Secrets.hash(state.getValue()), verifier.getValue(), nonce.getValue(), clock.millis());
        return new AuthenticationRequest.Builder(new ResponseType(ResponseType.Value.CODE), new Scope("openid", "email", "profile"),
                new ClientID(settings.clientId()), settings.callback())
                .endpointURI(known.metadata().getAuthorizationEndpointURI())
                .state(state).nonce(nonce).codeChallenge(verifier, CodeChallengeMethod.S256)
                .build().toURI();
    }

    /**
     * Finishes a sign-in from the issuer's answer ({@code /auth/callback?…}).
     *
     * @param query the callback's query string, as received
     * @return the person, signed in
     * @throws SignInFailed saying what was wrong, in words a person can act on (never a token or a secret)
     */
    Person finish(String query) {
        OidcIssuer.Known known = issuer.known();
        AuthenticationResponse response;
        try {
            response = AuthenticationResponseParser.parse(URI.create(settings.callback() + "?" + (query == null ? "" : query)));
        } catch (ParseException | IllegalArgumentException e) {
            throw new SignInFailed("the issuer's answer could not be read");
        }
        if (response instanceof AuthenticationErrorResponse error) {
            ErrorObject object = error.getErrorObject();
            throw new SignInFailed("the issuer refused: " + object.getCode()
                    + (object.getDescription() == null ? "" : " (" + object.getDescription() + ")"));
        }
        if (response.getState() == null) {
            throw new SignInFailed("the issuer's answer has no state");
        }
        PeopleStore.SignInAttempt attempt = people.takeSignIn(Secrets.hash(response.getState().getValue()),
                        clock.millis() - ATTEMPT_LIFETIME.toMillis())
                .orElseThrow(() -> new SignInFailed("this sign-in is unknown, was used already or took more than "
                        + ATTEMPT_LIFETIME.toMinutes() + " minutes"));
        AuthorizationCode code = response.toSuccessResponse().getAuthorizationCode();
        if (code == null) {
            throw new SignInFailed("the issuer's answer has no authorization code");
        }
        JWT idToken = exchange(known, code, new CodeVerifier(attempt.verifier()));
        IDTokenClaimsSet claims;
        try {
            IDTokenValidator validator = new IDTokenValidator(new Issuer(known.issuer()), new ClientID(settings.clientId()),
                    known.keySelector(), null);
            validator.setMaxClockSkew(OidcIssuer.MAX_CLOCK_SKEW_SECONDS);
            claims = validator.validate(idToken, new Nonce(attempt.nonce()));
        } catch (BadJOSEException | JOSEException e) {
            throw new SignInFailed("the issuer's ID token was refused: " + e.getMessage());
        }
        String name = Optional.ofNullable(claims.getStringClaim("name")).orElse(claims.getStringClaim("preferred_username"));
        String email = claims.getStringClaim("email");
        Boolean verified = claims.getBooleanClaim("email_verified");
        return people.signedIn(known.issuer(), claims.getSubject().getValue(), name, email, Boolean.TRUE.equals(verified), clock.millis());
    }

    private JWT exchange(OidcIssuer.Known known, AuthorizationCode code, CodeVerifier verifier) {
        AuthorizationCodeGrant grant = new AuthorizationCodeGrant(code, settings.callback(), verifier);
        TokenRequest request = settings.clientSecret() == null
                ? new TokenRequest(known.metadata().getTokenEndpointURI(), new ClientID(settings.clientId()), grant)
                : new TokenRequest(known.metadata().getTokenEndpointURI(),
                new ClientSecretBasic(new ClientID(settings.clientId()), new Secret(settings.clientSecret())), grant);
        HTTPRequest http = request.toHTTPRequest();
        http.setConnectTimeout(TIMEOUT_MILLIS);
        http.setReadTimeout(TIMEOUT_MILLIS);
        TokenResponse answer;
        try {
            answer = OIDCTokenResponseParser.parse(http.send());
        } catch (IOException e) {
            throw new SignInFailed("the issuer's token endpoint could not be reached (" + e.getClass().getSimpleName() + ")");
        } catch (ParseException e) {
            throw new SignInFailed("the issuer's token endpoint answered something that is not a token response");
        }
        if (!answer.indicatesSuccess()) {
            ErrorObject error = answer.toErrorResponse().getErrorObject();
            throw new SignInFailed("the issuer did not exchange the code: " + error.getCode()
                    + (error.getDescription() == null ? "" : " (" + error.getDescription() + ")"));
        }
        JWT idToken = ((OIDCTokenResponse) answer.toSuccessResponse()).getOIDCTokens().getIDToken();
        if (idToken == null) {
            throw new SignInFailed("the issuer's token response has no ID token");
        }
        return idToken;
    }

    /** A sign-in that did not succeed, and why. */
    static final class SignInFailed extends RuntimeException {
        SignInFailed(String message) {
            super(message, null, false, false);
        }
    }
}
