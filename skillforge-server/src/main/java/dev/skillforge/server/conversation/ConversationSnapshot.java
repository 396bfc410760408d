package dev.skillforge.server.conversation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.shell.ShellCommand;
import dev.skillforge.core.shell.ShellTagScanner;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.price.TokenPrices;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.StoredEntry;
import dev.skillforge.server.store.TurnRecord;

import java.util.List;
import java.util.OptionalDouble;

/**
 * A conversation at one moment: its record, its entries exactly as stored, its turns, and the live
 * summary of a running turn. {@link #toJson(TokenPrices)} is what {@code GET /api/conversations/{id}} answers:
 * the entries verbatim, and a turn view for the page (each turn with its iterations: raw content,
 * commands with ids, status and results, tool output, usage). Every {@code usage} with both
 * {@code inputTokens} and {@code cacheReadTokens} also has {@code cacheShare} (cached / input), and, where
 * the model's prices are known and its figures say enough, {@code costUsd} (dollars, 6 decimals); the
 * conversation has a {@code usage} of its own: the totals over its turns, its cost the sum of theirs (left
 * out when a turn's is unknown).
 */
public record ConversationSnapshot(ConversationRecord record, List<StoredEntry> entries, List<TurnRecord> turns,
                                   boolean running, JsonNode runningSummary) {

    static ConversationSnapshot of(ConversationRecord record, List<StoredEntry> entries, List<TurnRecord> turns, boolean running) {
        return new ConversationSnapshot(record, entries, turns, running, null);
    }

    public ObjectNode summaryJson() {
        return summaryJson(record, running);
    }

    /** What a conversation list shows of one conversation. */
    public static ObjectNode summaryJson(ConversationRecord record, boolean running) {
        ObjectNode json = Json.object();
        json.put("id", record.id()).put("title", record.title()).put("provider", record.provider()).put("model", record.model())
                .put("createdAt", record.createdAtMillis()).put("updatedAt", record.updatedAtMillis()).put("running", running);
        json.put("threadId", record.branch().threadId());
        if (record.forkedFrom() != null) { // a version of that conversation from turn forkedAtTurn on
            json.put("forkedFrom", record.forkedFrom()).put("forkedAtTurn", record.branch().forkedAtTurn());
        }
        return json;
    }

    /** What the API shows of a user entry's attachments: name, type, size, and where to download the file. */
    private ArrayNode attachmentsJson(StoredEntry entry) {
        ArrayNode list = Json.MAPPER.createArrayNode();
        for (Attachment attachment : entry.attachments()) {
            ObjectNode item = list.addObject().put("name", attachment.name()).put("mediaType", attachment.mediaType())
                    .put("size", attachment.size()).put("sha256", attachment.sha256())
                    .put("url", "/api/conversations/" + record.id() + "/attachments/" + attachment.sha256());
            if (attachment.isImage()) {
                item.put("width", attachment.image().width()).put("height", attachment.image().height());
            }
        }
        return list;
    }

    /** The usage figures a stored usage object may have, in the order they are totalled. */
    private static final String[] FIGURES = {"inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"};

    /** @param prices what the conversation's model's tokens cost, or {@code null} when unknown (no cost is shown) */
    public ObjectNode toJson(TokenPrices prices) {
        ObjectNode json = summaryJson();
        ArrayNode entryList = json.putArray("entries");
        for (StoredEntry entry : entries) {
            ObjectNode node = entryList.addObject();
            node.put("seq", entry.seq()).put("turn", entry.turn()).put("role", entry.kind()).put("content", entry.content());
            if (!entry.attachments().isEmpty()) {
                node.set("attachments", attachmentsJson(entry));
            }
            if (entry.replayFormat() != null) {
                node.putObject("replay").put("format", entry.replayFormat()).put("data", entry.replayData());
            }
        }
        ArrayNode turnList = json.putArray("turns");
        long[] totals = new long[FIGURES.length];
        boolean[] known = new boolean[FIGURES.length];
        double cost = 0;
        boolean costKnown = prices != null;
        for (TurnRecord turn : turns) {
            ObjectNode view = turnView(turn, prices);
            turnList.add(view);
            List<JsonNode> usages = view.has("usage") ? List.of(view.get("usage"))
                    : view.path("iterations").findValues("usage");
            for (JsonNode usage : usages) {
                addUsage(totals, known, usage);
                if (anyFigure(usage)) {
                    costKnown &= usage.path("costUsd").isNumber();
                    cost += usage.path("costUsd").asDouble();
                }
            }
        }
        ObjectNode usage = json.putObject("usage");
        for (int i = 0; i < FIGURES.length; i++) {
            if (known[i]) {
                usage.put(FIGURES[i], totals[i]);
            }
        }
        withCacheShare(usage);
        if (costKnown) {
            usage.put("costUsd", dollars(cost));
        }
        return json;
    }

    /** Adds a usage's known figures; unknown ones stay unknown unless another turn knows them. */
    private static void addUsage(long[] totals, boolean[] known, JsonNode usage) {
        for (int i = 0; i < FIGURES.length; i++) {
            if (usage.path(FIGURES[i]).isIntegralNumber()) {
                totals[i] += usage.get(FIGURES[i]).asLong();
                known[i] = true;
            }
        }
    }

    private static boolean anyFigure(JsonNode usage) {
        for (String figure : FIGURES) {
            if (usage.path(figure).isIntegralNumber()) {
                return true;
            }
        }
        return false;
    }

    /** Adds {@code cacheShare} (cached / input tokens, 4 decimals) when both are known and input is not 0. */
    private static ObjectNode withCacheShare(ObjectNode usage) {
        JsonNode input = usage.path("inputTokens");
        JsonNode cached = usage.path("cacheReadTokens");
        if (input.isIntegralNumber() && cached.isIntegralNumber() && input.asLong() > 0) {
            usage.put("cacheShare", Math.round(10_000.0 * cached.asLong() / input.asLong()) / 10_000.0);
        }
        return usage;
    }

    /** Adds {@code cacheShare}, and {@code costUsd} when {@code prices} are known and the figures say enough. */
    private static ObjectNode withShareAndCost(ObjectNode usage, TokenPrices prices) {
        withCacheShare(usage);
        if (prices != null) {
            OptionalDouble cost = prices.cost(new Usage(figure(usage, "inputTokens"), figure(usage, "outputTokens"),
                    figure(usage, "cacheReadTokens"), figure(usage, "cacheWriteTokens")));
            cost.ifPresent(dollars -> usage.put("costUsd", dollars(dollars)));
        }
        return usage;
    }

    private static Long figure(JsonNode usage, String field) {
        JsonNode value = usage.path(field);
        return value.isIntegralNumber() ? value.asLong() : null;
    }

    /** Dollars to 6 decimals (a millionth of a dollar is below any price per token shown here). */
    private static double dollars(double amount) {
        return Math.round(amount * 1_000_000) / 1_000_000.0;
    }

    private ObjectNode turnView(TurnRecord turn, TokenPrices prices) {
        JsonNode summary = TurnRecord.RUNNING.equals(turn.status()) && runningSummary != null ? runningSummary : parse(turn.summaryJson());
        ObjectNode view = Json.object();
        view.put("turn", turn.turn()).put("status", turn.status()).put("startedAt", turn.startedAtMillis());
        if (turn.endedAtMillis() != null) {
            view.put("endedAt", turn.endedAtMillis());
        }
        List<StoredEntry> ofTurn = entries.stream().filter(e -> e.turn() == turn.turn()).toList();
        ofTurn.stream().filter(e -> e.kind().equals("user")).findFirst().ifPresent(e -> {
            view.put("userMessage", e.content());
            if (!e.attachments().isEmpty()) {
                view.set("attachments", attachmentsJson(e));
            }
        });
        ArrayNode iterations = view.putArray("iterations");
        ObjectNode current = null;
        for (StoredEntry entry : ofTurn) {
            if (entry.kind().equals("assistant")) {
                int index = iterations.size();
                current = iterations.addObject().put("iteration", index).put("rawContent", entry.content());
                JsonNode meta = summary.path("perIteration").path(index);
                current.set("commands", meta.has("commands") ? meta.get("commands").deepCopy() : commandsIn(entry.content(), index));
                if (meta.has("usage") && meta.get("usage").isObject()) {
                    current.set("usage", withShareAndCost(meta.get("usage").deepCopy(), prices));
                }
                if (meta.has("sources")) {
                    current.set("sources", meta.get("sources").deepCopy());
                }
            } else if (entry.kind().equals("tool") && current != null) {
                current.put("toolOutput", entry.content());
            } else if (entry.kind().equals(HotConversation.CONTEXT) && HotConversation.keepFromOf(entry) >= 0) {
                // The model's view was cut before this turn's next call: say so where it happened.
                view.putObject("contextCut").put("keptFromSeq", HotConversation.keepFromOf(entry)).put("note", entry.content());
            }
        }
        for (String field : List.of("usage", "stopReason", "error")) {
            if (summary.has(field)) {
                view.set(field, summary.get(field).deepCopy());
            }
        }
        if (view.get("usage") instanceof ObjectNode usage) {
            withShareAndCost(usage, prices);
        }
        return view;
    }

    /** For a turn cut off before its summary was written: the commands, from the stored text, status unknown. */
    private static ArrayNode commandsIn(String rawContent, int iteration) {
        ArrayNode commands = Json.MAPPER.createArrayNode();
        List<String> found = new ShellTagScanner().feed(rawContent);
        for (int i = 0; i < found.size(); i++) {
            commands.addObject().put("commandId", ShellCommand.idFor(iteration, i)).put("command", found.get(i)).put("status", "unknown");
        }
        return commands;
    }

    private static JsonNode parse(String json) {
        if (json == null) {
            return Json.object();
        }
        try {
            return Json.parse(json);
        } catch (JsonProcessingException e) {
            return Json.object();
        }
    }
}
