package dev.skillforge.server.price;

import dev.skillforge.server.error.ConfigurationException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bundled price table ({@value #RESOURCE}): per provider preset and model, the prices of its
 * tokens, each entry with the page it was read from, the day it was read, and whether it was read on
 * the vendor's own page. The one place prices live; a providers file may override a provider's prices.
 */
public final class PriceTable {

    public static final String RESOURCE = "/prices.json";

    /**
     * One model's prices as the table has them.
     *
     * @param cacheWrite1h the price of a cache write kept an hour (Anthropic's {@code ttl: "1h"}), or {@code null}
     *                     where the vendor has none
     * @param verified     read on the vendor's own page; {@code false} for figures quoted from elsewhere (see {@code note})
     */
    public record Entry(String provider, String model, TokenPrices prices, Double cacheWrite1h, String source, String checked,
                        boolean verified, String note) {

        /** The prices when cache writes are kept for an hour: the 1-hour write price where there is one. */
        public TokenPrices withHourLongWrites() {
            if (cacheWrite1h == null) {
                return prices;
            }
            return new TokenPrices(prices.input(), prices.cachedInput(), cacheWrite1h, prices.output());
        }
    }

    private static final PriceTable BUNDLED = load();

    private final List<Entry> entries;

    PriceTable(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** The table shipped with the server. */
    public static PriceTable bundled() {
        return BUNDLED;
    }

    public List<Entry> entries() {
        return entries;
    }

    /** The prices of {@code model} at provider preset {@code provider}, if the table has them. */
    public Optional<Entry> find(String provider, String model) {
        return entries.stream().filter(e -> e.provider().equals(provider) && e.model().equals(model)).findFirst();
    }

    private static PriceTable load() {
        try (InputStream in = PriceTable.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the price table " + RESOURCE + " is missing from the server's resources");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a table in the format of {@value #RESOURCE}; every field is checked, a wrong one named. */
    static PriceTable parse(String json) throws IOException {
        JsonNode root = Json.parse(json);
        List<Entry> entries = new ArrayList<>();
        int i = 0;
        for (JsonNode node : root.path("prices")) {
            String at = "prices[" + i++ + "]";
            TokenPrices prices = new TokenPrices(price(node, "input", at), price(node, "cachedInput", at),
                    price(node, "cacheWrite", at), price(node, "output", at));
            Double hour = node.has("cacheWrite1h") ? price(node, "cacheWrite1h", at) : null;
            entries.add(new Entry(text(node, "provider", at), text(node, "model", at), prices, hour, text(node, "source", at),
                    text(node, "checked", at), node.path("verified").asBoolean(false), Json.text(node, "note")));
        }
        if (entries.isEmpty()) {
            throw new ConfigurationException("the price table has no prices");
        }
        return new PriceTable(entries);
    }

    /** A price from a JSON object (dollars per million tokens, 0 or more); also what a providers file's {@code prices} hold. */
    public static double price(JsonNode node, String field, String at) {
        JsonNode value = node.get(field);
        if (value == null || !value.isNumber() || value.asDouble() < 0) {
            throw new ConfigurationException(at + "." + field + " must be a price in dollars per million tokens (0 or more), was " + value);
        }
        return value.asDouble();
    }

    private static String text(JsonNode node, String field, String at) {
        String value = Json.text(node, field);
        if (value == null || value.isBlank()) {
            throw new ConfigurationException(at + "." + field + " is required");
        }
        return value;
    }
}
