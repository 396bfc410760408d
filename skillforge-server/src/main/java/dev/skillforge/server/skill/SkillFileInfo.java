package dev.skillforge.server.skill;

/**
 * One file of a version of a skill, as listed: its path, its size in bytes and the SHA-256 of its
 * bytes (lowercase hex), under which its content is stored once.
 */
public record SkillFileInfo(SkillPath path, long size, String sha256) {
}
