package dev.skillforge.server.conversation;

import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.price.TokenPrices;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * What runs stateless turns ({@code POST /api/agent} with the whole history): the default provider's loop, and
 * the commands of a stateless conversation, keyed as its prompt cache is (by its first message), so its turns
 * share one workspace of their own.
 *
 * @param loop     the default provider's loop, without a prefix guard
 * @param commands the command runner of a person (its first argument: their id) and a stateless conversation's key
 * @param budgets  what each person may spend: a stateless turn counts as any other
 * @param prices   what the default provider's tokens cost, when known
 * @param model    the default provider's model
 * @param vision   whether that model sees images, and what its API takes of them
 */
public record StatelessAgent(AgentLoop loop, BiFunction<String, String, CommandRunner> commands, Budgets budgets,
                             Optional<TokenPrices> prices, String model, Vision vision) {

    /**
     * Checks the images a stateless request brings: its client sends them all with every request, so all are this
     * request's.
     *
     * @throws dev.skillforge.server.document.DocumentException when the model sees no images, or they pass its API's limits
     */
    public void requireSeen(List<Entry> messages) {
        List<Attachment> images = messages.stream().filter(Entry.User.class::isInstance)
                .flatMap(entry -> ((Entry.User) entry).images().stream()).toList();
        vision.check(model, List.of(), images);
    }

    /**
     * A stateless conversation has no id, but its first message never changes: a key derived from it is the same for
     * every turn of the conversation, so providers route all its calls to one cache, and its commands to one workspace.
     */
    public static String key(String firstMessage) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] digest = sha.digest(firstMessage.getBytes(StandardCharsets.UTF_8));
            return "sf-" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
