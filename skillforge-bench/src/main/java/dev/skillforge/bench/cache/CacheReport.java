package dev.skillforge.bench.cache;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** The benchmark's tables (Markdown, for the terminal and the README) and its JSON. */
final class CacheReport {

    private CacheReport() {
    }

    static void print(PrintStream out, List<ScriptedConversation> suite, List<Measurement> measurements, List<String> misses, double seconds) {
        out.println();
        out.printf(Locale.ROOT, "Prompt cache: %d scripted conversations through the server and the simulated provider, %.1f s%n",
                suite.size(), seconds);
        suite.forEach(c -> out.printf(Locale.ROOT, "  %-13s %2d turns: %s%n", c.name(), c.turns().size(), c.about()));
        out.println();
        out.println("| cache rule                | history strategy      | cached / prompt | cached / cacheable | calls | failed | breaks |");
        out.println("|---------------------------|-----------------------|----------------:|-------------------:|------:|-------:|-------:|");
        for (Measurement m : measurements) {
            out.printf(Locale.ROOT, "| %-25s | %-21s | %15s | %18s | %5d | %6d | %6d |%n", m.rule().name(), m.strategy().name(),
                    percent(m.cached(), m.prompt()), percent(m.cached(), m.cacheable()), m.calls(), m.failed(), m.breaks());
        }
        out.println();
        out.println("cached / cacheable by conversation (failed calls in brackets):");
        StringBuilder header = new StringBuilder("| cache rule                | history strategy      |");
        StringBuilder rule = new StringBuilder("|---------------------------|-----------------------|");
        suite.forEach(c -> {
            header.append(String.format(Locale.ROOT, " %13s |", c.name()));
            rule.append("--------------:|");
        });
        out.println(header);
        out.println(rule);
        for (Measurement m : measurements) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %-25s | %-21s |", m.rule().name(), m.strategy().name()));
            for (ConversationResult c : m.conversations()) {
                String cell = percent(c.cached(), c.cacheable(m.rule().rule())) + (c.failed() > 0 ? " (" + c.failed() + ")" : "");
                row.append(String.format(Locale.ROOT, " %13s |", cell));
            }
            out.println(row);
        }
        out.println();
        for (Measurement m : measurements) {
            if (m.strategy() instanceof HistoryStrategy.SkillForge) {
                m.conversations().stream().filter(c -> c.conversation().outgrowsWindow()).forEach(c -> out.printf(Locale.ROOT,
                        "SkillForge, %s, %s: %d calls, %d context cuts, %d prompt tokens, %s of them cached%n", m.rule().name(),
                        c.conversation().name(), c.calls().size() + c.failed(), c.cuts(), c.prompt(), percent(c.cached(), c.prompt())));
            }
        }
        if (misses.isEmpty()) {
            out.println("SkillForge: all the cacheable tokens cached without overflow, at least 90% with it -> PASS");
        } else {
            out.println("SkillForge missed its targets -> FAIL");
            misses.forEach(miss -> out.println("  " + miss));
        }
    }

    static ObjectNode json(List<ScriptedConversation> suite, List<Measurement> measurements, List<String> misses, double seconds) {
        ObjectNode json = Json.object().put("benchmark", "cache").put("seconds", seconds).put("pass", misses.isEmpty());
        misses.forEach(json.putArray("misses")::add);
        ArrayNode conversations = json.putArray("conversations");
        suite.forEach(c -> conversations.addObject().put("name", c.name()).put("about", c.about()).put("turns", c.turns().size())
                .put("contextWindow", c.contextWindow()).put("outgrowsWindow", c.outgrowsWindow()));
        json.putArray("callFields").add("promptTokens").add("cachedTokens").add("cacheableTokens");
        ArrayNode results = json.putArray("results");
        for (Measurement m : measurements) {
            ObjectNode row = results.addObject().put("rule", m.rule().name()).put("strategy", m.strategy().name())
                    .put("promptTokens", m.prompt()).put("cachedTokens", m.cached()).put("cacheableTokens", m.cacheable())
                    .put("calls", m.calls()).put("failedCalls", m.failed()).put("cacheBreaks", m.breaks());
            ArrayNode detail = row.putArray("conversations");
            for (ConversationResult c : m.conversations()) {
                List<Long> cacheable = c.cacheableByCall(m.rule().rule());
                ObjectNode conversation = detail.addObject().put("name", c.conversation().name()).put("promptTokens", c.prompt())
                        .put("cachedTokens", c.cached()).put("cacheableTokens", c.cacheable(m.rule().rule()))
                        .put("failedCalls", c.failed()).put("cacheBreaks", c.breaks()).put("contextCuts", c.cuts());
                ArrayNode calls = conversation.putArray("calls");
                for (int k = 0; k < c.calls().size(); k++) {
                    calls.addArray().add(c.calls().get(k).prompt()).add(c.calls().get(k).cached()).add(cacheable.get(k));
                }
            }
        }
        return json;
    }

    private static String percent(long part, long whole) {
        double share = Measurement.share(part, whole);
        return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * share);
    }
}
