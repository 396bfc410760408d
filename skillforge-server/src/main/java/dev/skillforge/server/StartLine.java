package dev.skillforge.server;

import dev.skillforge.server.access.TeamSettings;
import dev.skillforge.server.config.DataDirectory;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.exec.SandboxSettings;
import dev.skillforge.server.provider.ConfiguredProvider;

import java.util.Optional;

/**
 * The one line a start logs, in words: where it serves and with which provider, who may call, which programs may run
 * and how they are confined, where the data and the conversations are. An operator reads it to know what they
 * started; tokens and secrets never appear in it.
 */
final class StartLine {

    private StartLine() {
    }

    /** {@code serve}'s line: "SkillForge listening on URL with provider …; callers: …; programs: …; data: …; conversations in …". */
    static String serve(String url, ConfiguredProvider provider, SecuritySettings security, Optional<TeamSettings> team,
                        DataDirectory data, String database) {
        return "SkillForge listening on " + url + " with " + provider(provider) + "; callers: " + callers(security, team)
                + "; " + programs(security) + "; data: " + data.describe() + ", conversations in " + database;
    }

    /** {@code mcp}'s line: its one caller is the client at the other end of stdio. */
    static String mcp(ConfiguredProvider provider, SecuritySettings security, DataDirectory data, String database) {
        return "SkillForge MCP on stdio with " + provider(provider) + "; " + programs(security) + "; data: " + data.describe()
                + ", conversations in " + database;
    }

    private static String provider(ConfiguredProvider provider) {
        return "provider " + provider.name() + " (" + provider.modelName() + ")"
                + (provider.simulated() ? ", a simulation: no model, no network" : "");
    }

    /** Who may call the API, MCP and the page. */
    static String callers(SecuritySettings security, Optional<TeamSettings> team) {
        String who = team.map(t -> "people who sign in at " + t.issuer() + " (FORGE_OIDC_ISSUER)")
                .orElse(security.apiToken() != null ? "whoever sends FORGE_API_TOKEN"
                        : "anyone on this machine (a loopback address, no FORGE_API_TOKEN)");
        return who + (security.corsOrigins().isEmpty() ? ""
                : ", also from pages of " + String.join(", ", security.corsOrigins()) + " (FORGE_CORS_ORIGINS)");
    }

    /** Which programs the model's commands may run, in which sandbox, and whether {@code web get} may fetch pages. */
    static String programs(SecuritySettings security) {
        SandboxSettings sandbox = security.sandbox();
        String confined = switch (sandbox.kind()) {
            case BWRAP -> "in bubblewrap" + (sandbox.network() ? " with the network" : " without network");
            case NONE -> "with no sandbox (FORGE_SANDBOX=none)";
        };
        String web = !security.web().enabled() ? ""
                : "; web get: " + (security.web().hosts().isEmpty() ? "any public host" : String.join(", ", security.web().hosts()));
        return "programs: " + (security.commands().isEmpty()
                ? "only the skill commands (others allowed with FORGE_ALLOW_COMMANDS would run " + confined + ")"
                : String.join(", ", security.commands().programs().keySet()) + " and the skill commands, " + confined) + web;
    }
}
