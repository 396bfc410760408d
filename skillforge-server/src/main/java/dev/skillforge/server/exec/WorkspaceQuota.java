package dev.skillforge.server.exec;

/**
 * How much one workspace may hold: {@code FORGE_WORKSPACE_MAX_FILES} files and folders and
 * {@code FORGE_WORKSPACE_MAX_BYTES} bytes of files. Past either, the workspace's programs are refused
 * (all but {@code rm} and {@code rmdir}) until it is cleared; other workspaces are not affected. No file
 * a program writes may be larger than {@code maxBytes} (the process's file-size limit), so one command
 * cannot fill the disk with one file.
 *
 * @param maxFiles the most files, folders and links
 * @param maxBytes the most bytes of files
 */
public record WorkspaceQuota(int maxFiles, long maxBytes) {

    /** 10,000 entries and 256 MiB. */
    public static final WorkspaceQuota DEFAULT = new WorkspaceQuota(10_000, 256L * 1024 * 1024);

    public WorkspaceQuota {
        if (maxFiles < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("a workspace quota must be positive: " + maxFiles + " files, " + maxBytes + " bytes");
        }
    }
}
