package dev.skillforge.server.conversation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.shell.ShellCommand;
import dev.skillforge.core.shell.ShellTagScanner;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.StoredEntry;
import dev.skillforge.server.store.TurnRecord;

import java.util.List;

/**
 * A conversation at one moment: its record, its entries exactly as stored, its turns, and the live
 * summary of a running turn. {@link #toJson()} is what {@code GET /api/conversations/{id}} answers:
 * the entries verbatim, and a turn view for the page (each turn with its iterations: raw content,
 * commands with ids, status and results, tool output, usage). Every {@code usage} with both
 * {@code inputTokens} and {@code cacheReadTokens} also has {@code cacheShare} (cached / input), and the
 * conversation has a {@code usage} of its own: the totals over its turns.
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
        return json;
    }

    public ObjectNode toJson() {
        ObjectNode json = summaryJson();
        ArrayNode entryList = json.putArray("entries");
        for (StoredEntry entry : entries) {
            ObjectNode node = entryList.addObject();
            node.put("seq", entry.seq()).put("turn", entry.turn()).put("role", entry.kind()).put("content", entry.content());
            if (entry.replayFormat() != null) {
                node.putObject("replay").put("format", entry.replayFormat()).put("data", entry.replayData());
            }
        }
        ArrayNode turnList = json.putArray("turns");
        long[] totals = new long[3];
        boolean[] known = new boolean[3];
        for (TurnRecord turn : turns) {
            ObjectNode view = turnView(turn);
            turnList.add(view);
            if (view.has("usage")) {
                addUsage(totals, known, view.get("usage"));
            } else {
                view.path("iterations").forEach(iteration -> addUsage(totals, known, iteration.path("usage")));
            }
        }
        ObjectNode usage = json.putObject("usage");
        String[] fields = {"inputTokens", "outputTokens", "cacheReadTokens"};
        for (int i = 0; i < fields.length; i++) {
            if (known[i]) {
                usage.put(fields[i], totals[i]);
            }
        }
        withCacheShare(usage);
        return json;
    }

    /** Adds a usage's known figures; unknown ones stay unknown unless another turn knows them. */
    private static void addUsage(long[] totals, boolean[] known, JsonNode usage) {
        String[] fields = {"inputTokens", "outputTokens", "cacheReadTokens"};
        for (int i = 0; i < fields.length; i++) {
            if (usage.path(fields[i]).isIntegralNumber()) {
                totals[i] += usage.get(fields[i]).asLong();
                known[i] = true;
            }
        }
    }

    /** Adds {@code cacheShare} (cached / input tokens, 4 decimals) when both are known and input is not 0. */
    static ObjectNode withCacheShare(ObjectNode usage) {
        JsonNode input = usage.path("inputTokens");
        JsonNode cached = usage.path("cacheReadTokens");
        if (input.isIntegralNumber() && cached.isIntegralNumber() && input.asLong() > 0) {
            usage.put("cacheShare", Math.round(10_000.0 * cached.asLong() / input.asLong()) / 10_000.0);
        }
        return usage;
    }

    private ObjectNode turnView(TurnRecord turn) {
        JsonNode summary = TurnRecord.RUNNING.equals(turn.status()) && runningSummary != null ? runningSummary : parse(turn.summaryJson());
        ObjectNode view = Json.object();
        view.put("turn", turn.turn()).put("status", turn.status()).put("startedAt", turn.startedAtMillis());
        if (turn.endedAtMillis() != null) {
            view.put("endedAt", turn.endedAtMillis());
        }
        List<StoredEntry> ofTurn = entries.stream().filter(e -> e.turn() == turn.turn()).toList();
        ofTurn.stream().filter(e -> e.kind().equals("user")).findFirst().ifPresent(e -> view.put("userMessage", e.content()));
        ArrayNode iterations = view.putArray("iterations");
        ObjectNode current = null;
        for (StoredEntry entry : ofTurn) {
            if (entry.kind().equals("assistant")) {
                int index = iterations.size();
                current = iterations.addObject().put("iteration", index).put("rawContent", entry.content());
                JsonNode meta = summary.path("perIteration").path(index);
                current.set("commands", meta.has("commands") ? meta.get("commands").deepCopy() : commandsIn(entry.content(), index));
                if (meta.has("usage") && meta.get("usage").isObject()) {
                    current.set("usage", withCacheShare(meta.get("usage").deepCopy()));
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
            withCacheShare(usage);
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
