package dev.skillforge.server.cache;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Token counts for keeping conversations inside their context window: OpenAI's o200k_base (via jtokkit)
 * for every provider. Other tokenizers count somewhat differently; the window's cut margins absorb
 * that. Counts are remembered per text while the text lives (transcript entries are immutable and sent
 * again on every call), so each entry is tokenised once.
 */
public final class TokenEstimate {

    private static final Encoding ENCODING = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
    private static final Map<String, Integer> COUNTED = Collections.synchronizedMap(new WeakHashMap<>());

    private TokenEstimate() {
    }

    /** The o200k tokens of {@code text} (the simulated provider's prompt cache compares them). */
    public static int[] tokens(String text) {
        return ENCODING.encodeOrdinary(text).toArray();
    }

    public static int count(String text) {
        Integer known = COUNTED.get(text);
        if (known != null) {
            return known;
        }
        int counted = ENCODING.countTokensOrdinary(text);
        COUNTED.put(text, counted);
        return counted;
    }
}
