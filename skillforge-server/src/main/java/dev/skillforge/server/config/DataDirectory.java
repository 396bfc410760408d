package dev.skillforge.server.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The data folder and where its path came from: {@code FORGE_DATA_DIR} when it is set, else {@code data} beside the
 * installation, which the launcher names in the {@value #HOME_PROPERTY} property. {@code serve} and {@code mcp} so find
 * the same data whichever folder starts them (MCP clients start stdio servers in the user's project folder). Started
 * without the launcher and without {@code FORGE_DATA_DIR}, the server knows no installation: {@code data} in the
 * working folder, with a warning.
 *
 * @param path   the folder, absolute
 * @param origin where the path came from
 */
public record DataDirectory(Path path, Origin origin) {

    /** The system property the launcher names its own folder in ({@code -Dskillforge.home=…}). */
    public static final String HOME_PROPERTY = "skillforge.home";
    public static final String VARIABLE = "FORGE_DATA_DIR";

    /** Where the path came from. */
    public enum Origin {
        /** {@code FORGE_DATA_DIR}, an absolute path. */
        SETTING,
        /** {@code FORGE_DATA_DIR}, a relative path: resolved against the working folder. */
        RELATIVE_SETTING,
        /** The default: {@code data} beside the installation. */
        INSTALLATION,
        /** Neither {@code FORGE_DATA_DIR} nor the launcher's property: {@code data} in the working folder. */
        WORKING_FOLDER
    }

    /** The data folder of this environment and the launcher's {@value #HOME_PROPERTY} property, if set. */
    public static DataDirectory from(Map<String, String> env) {
        return from(env, System.getProperty(HOME_PROPERTY));
    }

    /**
     * @param home the installation's folder, or {@code null} when the launcher did not start this process
     */
    public static DataDirectory from(Map<String, String> env, String home) {
        String value = env.get(VARIABLE);
        if (value != null && !value.isBlank()) {
            Path path = Path.of(value);
            return path.isAbsolute() ? new DataDirectory(path, Origin.SETTING)
                    : new DataDirectory(path.toAbsolutePath().normalize(), Origin.RELATIVE_SETTING);
        }
        if (home != null && !home.isBlank()) {
            return new DataDirectory(Path.of(home).toAbsolutePath().normalize().resolve("data"), Origin.INSTALLATION);
        }
        return new DataDirectory(Path.of("data").toAbsolutePath(), Origin.WORKING_FOLDER);
    }

    /** The folder and where it came from, for the start's log line: "/srv/skillforge/data (beside the installation)". */
    public String describe() {
        return path + switch (origin) {
            case SETTING -> " (" + VARIABLE + ")";
            case RELATIVE_SETTING -> " (" + VARIABLE + ", relative to the folder it was started from)";
            case INSTALLATION -> " (beside the installation; " + VARIABLE + " to choose another)";
            case WORKING_FOLDER -> " (in the folder it was started from)";
        };
    }

    /** What to warn of at start: a data folder that depends on the folder the server is started from. */
    public Optional<String> warning() {
        return switch (origin) {
            case RELATIVE_SETTING -> Optional.of(VARIABLE + " is a relative path: the data folder is " + path + ", in the folder"
                    + " the server was started from, and a start from another folder (as MCP clients do) finds other data."
                    + " Set " + VARIABLE + " to an absolute path");
            case WORKING_FOLDER -> Optional.of("Started without ./skillforge and without " + VARIABLE + ": the data folder is "
                    + path + ", in the folder the server was started from, and a start from another folder finds other data."
                    + " Set " + VARIABLE + " to an absolute path");
            case SETTING, INSTALLATION -> Optional.empty();
        };
    }
}
