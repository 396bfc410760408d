package dev.skillforge.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Agent Skills reference validator, npm's {@code skills-ref} (pinned in {@code .ci/skills-ref/package-lock.json}),
 * run on Node as {@code skills-ref validate DIR}. It is installed on first use with {@code npm ci} from the npm
 * registry, as the MCP clients' checks install theirs; the machine needs Node 18 or newer and npm.
 */
public final class SkillsRef {

    /** What the validator said: exit code 0 for a valid skill, 1 with a list of problems otherwise. */
    public record Verdict(int exitCode, String output) {
    }

    private SkillsRef() {
    }

    /** Runs {@code skills-ref validate folder}. */
    public static Verdict validate(Path folder) throws IOException, InterruptedException {
        Path cli = installed().resolve("node_modules/skills-ref/dist/cli.js");
        return run(List.of("node", cli.toString(), "validate", folder.toString()), folder.getParent(), 60);
    }

    /** The validator's folder, with its pinned packages installed. */
    private static Path installed() throws IOException, InterruptedException {
        Path folder = repositoryRoot().resolve(".ci/skills-ref");
        if (!Files.isRegularFile(folder.resolve("node_modules/skills-ref/dist/cli.js"))) {
            Verdict install = run(List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), folder, 300);
            if (install.exitCode() != 0) {
                throw new IOException("npm ci in " + folder + " failed (exit " + install.exitCode() + "): skills-ref needs npm and the"
                        + " npm registry once.\n" + install.output());
            }
        }
        return folder;
    }

    /** The checkout: the module's parent, where {@code .ci} is. */
    private static Path repositoryRoot() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path candidate = dir; candidate != null; candidate = candidate.getParent()) {
            if (Files.isRegularFile(candidate.resolve(".ci/skills-ref/package.json"))) {
                return candidate;
            }
        }
        throw new IllegalStateException(".ci/skills-ref/package.json was not found above " + dir);
    }

    private static Verdict run(List<String> command, Path dir, int seconds) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not end within " + seconds + " s");
        }
        return new Verdict(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}
