package dev.skillforge.server.mcp;

import dev.skillforge.server.cache.PrefixGuard;
import dev.skillforge.server.provider.sim.SimProviderServer;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code dev.skillforge.server.Main mcp} as a client starts it: a child JVM on the test JVM's class
 * path, its settings only from {@code FORGE_*} variables (none inherited), talking to a simulated
 * provider of the test over loopback HTTP.
 */
final class McpStdioProcess {

    private McpStdioProcess() {
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The arguments after {@link #java()}. */
    static List<String> arguments() {
        return List.of("--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                // A cache break fails the child's model call too, as it does in this JVM.
                "-D" + PrefixGuard.STRICT_PROPERTY + "=" + PrefixGuard.strictByProperty(),
                "-cp", System.getProperty("java.class.path"), "dev.skillforge.server.Main", "mcp");
    }

    /** The settings of a server on {@code dataDir} whose one provider, {@code openai}, is {@code sim}. */
    static Map<String, String> environment(SimProviderServer sim, Path dataDir) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("FORGE_PROVIDER", "openai");
        env.put("FORGE_BASE_URL", sim.baseUrl());
        env.put("FORGE_MODEL", SimProviderServer.MODEL);
        env.put("FORGE_VISION", "1"); // the openai preset does not know this model's name: the setting says it sees images
        env.put("FORGE_PROVIDER_TIMEOUT_SECONDS", "30");
        env.put("FORGE_DATA_DIR", dataDir.toString());
        env.put("FORGE_CACHE_LOG", "debug"); // the [Cache Debug] lines, which the tests look for on stderr
        return env;
    }

    /** A process builder whose environment holds no {@code FORGE_*} variable of this JVM's. */
    static ProcessBuilder withoutInheritedSettings(ProcessBuilder builder) {
        builder.environment().keySet().removeIf(key -> key.startsWith("FORGE_"));
        return builder;
    }
}
