package dev.skillforge.bench.cache;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.price.PriceTable;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's tables (Markdown, for the terminal and the README) and its JSON: token shares, and the suite's
 * cost in dollars at the prices of the model each rule stands for, with the ratio of SkillForge's cost to each
 * strategy's under the same rule.
 */
final class CacheReport {

    private CacheReport() {
    }

    static void print(PrintStream out, List<ScriptedConversation> suite, List<Measurement> measurements, List<String> misses, double seconds) {
        out.println();
        out.printf(Locale.ROOT, "Prompt cache: %d scripted conversations through the server and the simulated provider, %.1f s%n",
                suite.size(), seconds);
        suite.forEach(c -> out.printf(Locale.ROOT, "  %-13s %2d turns: %s%n", c.name(), c.turns().size(), c.about()));
        out.println();
        out.println("| cache rule                | history strategy      | cached / prompt | cached / cacheable | calls | failed | breaks |"
                + "  cost ($) | SkillForge : this |");
        out.println("|---------------------------|-----------------------|----------------:|-------------------:|------:|-------:|-------:|"
                + "----------:|------------------:|");
        for (Measurement m : measurements) {
            out.printf(Locale.ROOT, "| %-25s | %-21s | %15s | %18s | %5d | %6d | %6d | %9s | %17s |%n", m.rule().name(), m.strategy().name(),
                    percent(m.cached(), m.prompt()), percent(m.cached(), m.cacheable()), m.calls(), m.failed(), m.breaks(),
                    dollars(m.cost()), ratio(skillForge(measurements, m.rule()).cost(), m.cost()));
        }
        out.println();
        out.println("priced at (dollars per million tokens: input / cached input / cache write / output; source, date read):");
        for (RuleCase rule : RuleCase.ALL) {
            PriceTable.Entry price = rule.price();
            out.printf(Locale.ROOT, "  %-25s %s %s: %s / %s / %s / %s (%s, %s%s)%n", rule.name(), price.provider(), price.model(),
                    plain(price.prices().input()), plain(price.prices().cachedInput()), plain(price.prices().cacheWrite()),
                    plain(price.prices().output()), price.source(),
                    price.checked(), price.verified() ? "" : "; not read on the vendor's own page");
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
        json.putArray("callFields").add("promptTokens").add("cachedTokens").add("cacheableTokens").add("cacheWriteTokens").add("outputTokens");
        ObjectNode prices = json.putObject("prices");
        for (RuleCase rule : RuleCase.ALL) {
            PriceTable.Entry price = rule.price();
            prices.putObject(rule.name()).put("provider", price.provider()).put("model", price.model())
                    .put("input", price.prices().input()).put("cachedInput", price.prices().cachedInput())
                    .put("cacheWrite", price.prices().cacheWrite()).put("output", price.prices().output())
                    .put("source", price.source()).put("checked", price.checked()).put("verified", price.verified());
        }
        ArrayNode results = json.putArray("results");
        for (Measurement m : measurements) {
            ObjectNode row = results.addObject().put("rule", m.rule().name()).put("strategy", m.strategy().name())
                    .put("promptTokens", m.prompt()).put("cachedTokens", m.cached()).put("cacheableTokens", m.cacheable())
                    .put("calls", m.calls()).put("failedCalls", m.failed()).put("cacheBreaks", m.breaks());
            putDollars(row, "costUsd", m.cost());
            ArrayNode detail = row.putArray("conversations");
            for (ConversationResult c : m.conversations()) {
                List<Long> cacheable = c.cacheableByCall(m.rule().rule());
                ObjectNode conversation = detail.addObject().put("name", c.conversation().name()).put("promptTokens", c.prompt())
                        .put("cachedTokens", c.cached()).put("cacheableTokens", c.cacheable(m.rule().rule()))
                        .put("failedCalls", c.failed()).put("cacheBreaks", c.breaks()).put("contextCuts", c.cuts());
                ArrayNode calls = conversation.putArray("calls");
                for (int k = 0; k < c.calls().size(); k++) {
                    ConversationResult.Call call = c.calls().get(k);
                    calls.addArray().add(call.prompt()).add(call.cached()).add(cacheable.get(k)).add(call.written()).add(call.output());
                }
            }
        }
        return json;
    }

    /** The SkillForge measurement under {@code rule}. */
    static Measurement skillForge(List<Measurement> measurements, RuleCase rule) {
        return measurements.stream().filter(m -> m.rule() == rule && m.strategy() instanceof HistoryStrategy.SkillForge)
                .findFirst().orElseThrow();
    }

    private static String plain(double price) {
        return java.math.BigDecimal.valueOf(price).stripTrailingZeros().toPlainString();
    }

    private static String dollars(double cost) {
        return Double.isNaN(cost) ? "unknown" : String.format(Locale.ROOT, "%.4f", cost);
    }

    /** SkillForge's cost as a share of another's, {@code 0.42 : 1}; {@code 1 : 1} for SkillForge itself. */
    private static String ratio(double skillForge, double other) {
        if (Double.isNaN(skillForge) || Double.isNaN(other) || other == 0) {
            return "unknown";
        }
        return String.format(Locale.ROOT, "%.2f : 1", skillForge / other);
    }

    private static void putDollars(ObjectNode json, String field, double cost) {
        if (!Double.isNaN(cost)) {
            json.put(field, Math.round(cost * 1_000_000) / 1_000_000.0);
        }
    }

    private static String percent(long part, long whole) {
        double share = Measurement.share(part, whole);
        return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * share);
    }
}
