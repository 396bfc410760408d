-- People and what they own. A server without sign-in has one built-in person, 'local', who owns everything;
-- on a team server (FORGE_OIDC_ISSUER) the first admin to sign in is given what 'local' owned.
ALTER TABLE conversations ADD COLUMN owner TEXT NOT NULL DEFAULT 'local';
CREATE INDEX conversations_by_owner ON conversations (owner, updated_at DESC, id);

-- One row per person who signed in, by their issuer and subject (the ID token's iss and sub, never the e-mail).
-- Who is an admin is not stored: FORGE_ADMINS says, at every request.
CREATE TABLE people (
    id                    TEXT    NOT NULL PRIMARY KEY,
    issuer                TEXT    NOT NULL,
    subject               TEXT    NOT NULL,
    name                  TEXT,
    email                 TEXT,
    email_verified        INTEGER NOT NULL DEFAULT 0,
    disabled              INTEGER NOT NULL DEFAULT 0,
    monthly_budget_micros BIGINT,
    first_sign_in         BIGINT  NOT NULL,
    last_sign_in          BIGINT  NOT NULL,
    UNIQUE (issuer, subject)
);

-- The page's sessions: the cookie holds a random secret, the row its SHA-256. Any instance checks any session.
CREATE TABLE sessions (
    secret_hash TEXT   NOT NULL PRIMARY KEY,
    person_id   TEXT   NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX sessions_by_person ON sessions (person_id);

-- Personal access tokens: shown once, stored as their SHA-256.
CREATE TABLE access_tokens (
    id           TEXT   NOT NULL PRIMARY KEY,
    person_id    TEXT   NOT NULL,
    name         TEXT   NOT NULL,
    secret_hash  TEXT   NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT
);
CREATE INDEX access_tokens_by_person ON access_tokens (person_id);

-- A sign-in under way: the state sent to the issuer (its SHA-256), the PKCE verifier and the nonce to check the
-- answer against, on whichever instance the issuer sends the browser back to.
CREATE TABLE sign_ins (
    state_hash TEXT   NOT NULL PRIMARY KEY,
    verifier   TEXT   NOT NULL,
    nonce      TEXT   NOT NULL,
    created_at BIGINT NOT NULL
);

-- What each person's turns cost, by calendar month (UTC, 'YYYY-MM'), in millionths of a dollar: kept when a
-- conversation is deleted, since the money was spent.
CREATE TABLE spend (
    person_id TEXT   NOT NULL,
    month     TEXT   NOT NULL,
    micro_usd BIGINT NOT NULL,
    PRIMARY KEY (person_id, month)
);
