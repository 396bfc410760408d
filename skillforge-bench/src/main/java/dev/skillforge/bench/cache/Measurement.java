package dev.skillforge.bench.cache;

import java.util.List;

/** The suite's conversations under one cache rule and one history strategy, and their totals. */
record Measurement(RuleCase rule, HistoryStrategy strategy, List<ConversationResult> conversations) {

    Measurement {
        conversations = List.copyOf(conversations);
    }

    long prompt() {
        return conversations.stream().mapToLong(ConversationResult::prompt).sum();
    }

    long cached() {
        return conversations.stream().mapToLong(ConversationResult::cached).sum();
    }

    long cacheable() {
        return conversations.stream().mapToLong(c -> c.cacheable(rule.rule())).sum();
    }

    /** What the suite cost under this rule's model's prices, in dollars (NaN when a call's figures do not say). */
    double cost() {
        return conversations.stream().mapToDouble(c -> c.cost(rule.price().prices())).sum();
    }

    /** Model calls made: answered and failed. */
    int calls() {
        return conversations.stream().mapToInt(c -> c.calls().size() + c.failed()).sum();
    }

    int failed() {
        return conversations.stream().mapToInt(ConversationResult::failed).sum();
    }

    long breaks() {
        return conversations.stream().mapToLong(ConversationResult::breaks).sum();
    }

    /** {@code part / whole}, or NaN when {@code whole} is 0 (nothing could be cached). */
    static double share(long part, long whole) {
        return whole == 0 ? Double.NaN : (double) part / whole;
    }
}
