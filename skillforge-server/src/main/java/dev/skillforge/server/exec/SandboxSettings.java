package dev.skillforge.server.exec;

import dev.skillforge.server.error.ConfigurationException;
import java.util.Locale;

/**
 * How the model's programs are confined: {@code FORGE_SANDBOX}, {@code FORGE_SANDBOX_NETWORK},
 * {@code FORGE_SANDBOX_UID} and the workspaces' quota ({@code FORGE_WORKSPACE_MAX_FILES},
 * {@code FORGE_WORKSPACE_MAX_BYTES}).
 *
 * @param kind    {@link Kind#BWRAP} (the default) or {@link Kind#NONE}
 * @param network whether sandboxed programs share the server's network ({@code FORGE_SANDBOX_NETWORK=1});
 *                off by default: they see no network interface at all, loopback included
 * @param uid     the host user (and group) programs run as when the server runs as root ({@link SandboxUser})
 * @param quota   what each conversation's workspace may hold
 */
public record SandboxSettings(Kind kind, boolean network, int uid, WorkspaceQuota quota) {

    /** The values of {@code FORGE_SANDBOX}. */
    public enum Kind {
        /** Every allowed program runs inside bubblewrap ({@link Bubblewrap}). */
        BWRAP,
        /** Programs run directly, confined only by the argument checks ({@link NoSandbox}). */
        NONE
    }

    /** Bubblewrap, no network, {@code nobody} under a root server, the default quota. */
    public static final SandboxSettings DEFAULT = new SandboxSettings(Kind.BWRAP, false, SandboxUser.NOBODY, WorkspaceQuota.DEFAULT);

    /** The same settings with another kind and network. */
    public SandboxSettings with(Kind otherKind, boolean otherNetwork) {
        return new SandboxSettings(otherKind, otherNetwork, uid, quota);
    }

    /** The same settings with another quota. */
    public SandboxSettings with(WorkspaceQuota otherQuota) {
        return new SandboxSettings(kind, network, uid, otherQuota);
    }

    /**
     * @param value {@code FORGE_SANDBOX}: {@code bwrap}, {@code none}, or {@code null} (the default, bwrap)
     * @throws ConfigurationException naming the variable and its two values
     */
    public static Kind kind(String value) {
        if (value == null || value.isBlank()) {
            return Kind.BWRAP;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "bwrap" -> Kind.BWRAP;
            case "none" -> Kind.NONE;
            default -> throw new ConfigurationException("FORGE_SANDBOX=" + value + " is not a sandbox: use bwrap (the default:"
                    + " programs run in bubblewrap) or none (no sandbox)");
        };
    }

    @Override
    public String toString() {
        return kind == Kind.NONE ? "none" : network ? "bwrap with network" : "bwrap";
    }
}
