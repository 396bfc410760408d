-- Skills with their whole history, beside the conversations, so that every instance sees the same skills.
-- Portable SQL, like the others. Every row names its owner (a person's id, or 'team' for the team library),
-- and every query filters by it.

-- The files' contents: each once per owner under its SHA-256 (lowercase hex), whatever versions and paths use it.
CREATE TABLE skill_blobs (
    owner  TEXT   NOT NULL,
    sha256 TEXT   NOT NULL,
    size   BIGINT NOT NULL,
    data   BYTEA  NOT NULL,
    PRIMARY KEY (owner, sha256)
);

-- The versions of each skill, 1, 2, … per owner and name; inserted once, never updated. A version with deleted = 1
-- deleted the skill and holds no files. door says where the version was written ('model', 'api', 'mcp', 'import',
-- 'disk'), conversation_id which conversation's model wrote it, restored_from which version it restores.
CREATE TABLE skill_versions (
    owner           TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    version         INTEGER NOT NULL,
    created_at      BIGINT  NOT NULL,
    door            TEXT    NOT NULL,
    conversation_id TEXT,
    restored_from   INTEGER,
    deleted         INTEGER NOT NULL,
    description     TEXT    NOT NULL,
    PRIMARY KEY (owner, name, version)
);

-- The files of each version: the whole folder, path by path.
CREATE TABLE skill_version_files (
    owner   TEXT    NOT NULL,
    name    TEXT    NOT NULL,
    version INTEGER NOT NULL,
    path    TEXT    NOT NULL,
    sha256  TEXT    NOT NULL,
    size    BIGINT  NOT NULL,
    PRIMARY KEY (owner, name, version, path),
    FOREIGN KEY (owner, name, version) REFERENCES skill_versions (owner, name, version),
    FOREIGN KEY (owner, sha256) REFERENCES skill_blobs (owner, sha256)
);
-- Which versions use a content: for removing contents no version uses any more.
CREATE INDEX skill_version_files_by_content ON skill_version_files (owner, sha256);
