package dev.skillforge.server.exec;

import dev.skillforge.server.error.ConfigurationException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Who the model's programs are on the host. A user namespace maps the sandbox's user to whoever starts
 * bubblewrap, so a server run as root would give its programs root's power over every file, device and
 * kernel setting the sandbox leaves visible. So when the server's effective user is root, each program is
 * first dropped to an unprivileged host user ({@code FORGE_SANDBOX_UID}, {@code nobody} by default) by
 * util-linux's {@code setpriv}, with no supplementary group, no capability (none inheritable, an empty
 * bounding set) and no way to gain privileges again; its workspaces are that user's. A server run as any
 * other user runs its programs as itself, inside the sandbox.
 *
 * <p>The dropped user must reach the workspaces to be given them: the data folder and the workspaces'
 * folder are then {@code 0710} with that user's group, so it can pass through them and list nothing, and
 * every folder above must let it pass ({@link #requireReachable}).
 *
 * @param dropped whether programs run as another host user than the server
 * @param uid     the host user programs run as
 * @param gid     the host group programs run as
 */
public record SandboxUser(boolean dropped, int uid, int gid) {

    /** {@code nobody}/{@code nogroup}: the default user a root server drops its programs to. */
    public static final int NOBODY = 65534;

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> GROUP_PASSES = PosixFilePermissions.fromString("rwx--x---");

    /**
     * The user for a server running as {@code serverUid}.
     *
     * @param dropTo the host user (and group) a root server runs programs as; never root
     */
    public static SandboxUser forServer(int serverUid, int dropTo) {
        if (dropTo <= 0) {
            throw new ConfigurationException("FORGE_SANDBOX_UID=" + dropTo + " is not an unprivileged user: use a user id above 0"
                    + " that owns nothing else (the default is " + NOBODY + ", nobody)");
        }
        return serverUid == 0 ? new SandboxUser(true, dropTo, dropTo) : new SandboxUser(false, serverUid, serverUid);
    }

    /** The user for this process, read from {@code /proc/self/status} (its effective uid). */
    public static SandboxUser forThisProcess(int dropTo) {
        return forServer(effectiveUid(), dropTo);
    }

    /** This process's own user, for a server that runs no program (nobody needs to pass into its data folder). */
    public static SandboxUser thisProcessItself() {
        int self = effectiveUid();
        return new SandboxUser(false, self, self);
    }

    static int effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).strip().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: unknown, treated as not root below
        }
        return -1;
    }

    /**
     * What starts a program as this user: {@code setpriv} and its options when {@link #dropped}, else nothing.
     *
     * @throws ConfigurationException when the user must be dropped and util-linux's setpriv is missing
     */
    List<String> commandPrefix() {
        if (!dropped) {
            return List.of();
        }
        Path setpriv = CommandPolicy.onSafePath("setpriv").orElseThrow(() -> new ConfigurationException("the server runs as root,"
                + " so the model's programs must run as an unprivileged user (FORGE_SANDBOX_UID), which needs util-linux's setpriv,"
                + " and there is none in " + CommandPolicy.SAFE_PATH_VARIABLE + " (Debian, Ubuntu: apt-get install util-linux)"));
        return List.of(setpriv.toString(), "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--inh-caps=-all",
                "--bounding-set=-all", "--no-new-privs", "--");
    }

    /** Makes {@code folder} a workspace this user owns, which no other account may enter ({@code 0700}). */
    void own(Path folder) throws IOException {
        Files.setPosixFilePermissions(folder, OWNER_ONLY);
        if (dropped) {
            Files.setAttribute(folder, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(folder, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        }
    }

    /**
     * Closes {@code folder} (the data folder, the workspaces' folder) to every other account: {@code 0700}, or when
     * {@link #dropped}, {@code 0710} with this user's group, so that it can pass through to its workspaces.
     */
    public void closeAllBut(Path folder) throws IOException {
        if (dropped) {
            Files.setAttribute(folder, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            Files.setPosixFilePermissions(folder, GROUP_PASSES);
        } else {
            Files.setPosixFilePermissions(folder, OWNER_ONLY);
        }
    }

    /**
     * @throws ConfigurationException when a folder above {@code folder} keeps this user out (mode {@code 0700}
     *                                of another owner, as root's home is), naming it and what to do
     */
    void requireReachable(Path folder) throws IOException {
        if (!dropped) {
            return;
        }
        List<Path> above = new ArrayList<>();
        for (Path at = folder.toRealPath().getParent(); at != null; at = at.getParent()) {
            above.add(at);
        }
        for (Path at : above.reversed()) {
            if (!passes(at)) {
                throw new ConfigurationException("the server runs as root and runs the model's programs as user " + uid
                        + " (FORGE_SANDBOX_UID), which cannot pass through " + at + " (mode "
                        + PosixFilePermissions.toString(Files.getPosixFilePermissions(at)) + ") to reach the workspaces in " + folder
                        + ": put FORGE_DATA_DIR where other users may pass (e.g. /var/lib/skillforge), or run the server as an"
                        + " unprivileged user");
            }
        }
    }

    private boolean passes(Path folder) throws IOException {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(folder);
        int owner = (Integer) Files.getAttribute(folder, "unix:uid");
        int group = (Integer) Files.getAttribute(folder, "unix:gid");
        return owner == uid ? mode.contains(PosixFilePermission.OWNER_EXECUTE)
                : group == gid ? mode.contains(PosixFilePermission.GROUP_EXECUTE)
                : mode.contains(PosixFilePermission.OTHERS_EXECUTE);
    }
}
