package dev.skillforge.server.provider.gemini;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the videos a person links in a message, so Gemini can watch them ("learn from this video"):
 * YouTube links, sent in the one form Gemini documents ({@code https://www.youtube.com/watch?v=ID}),
 * and links to video files by their extension, sent as written with their MIME type.
 *
 * <p>Deterministic: the same text always gives the same videos, in the order they first appear, each
 * once, at most {@value #MAX_VIDEOS}. Other links are left to the model (and to {@code url_context}).
 */
final class VideoLinks {

    /** Gemini takes at most 10 videos in one request. */
    public static final int MAX_VIDEOS = 10;

    /** One video: its URI as sent, and the MIME type ({@code null} for YouTube, which Gemini recognises by URI). */
    public record Video(String uri, String mimeType) {
    }

    private static final Pattern LINK = Pattern.compile("https?://[^\\s<>\"'`\\[\\]{}|\\\\^]+", Pattern.CASE_INSENSITIVE);
    private static final Pattern YOUTUBE_ID = Pattern.compile("[A-Za-z0-9_-]{11}");
    private static final Map<String, String> VIDEO_TYPES = new LinkedHashMap<>();

    static {
        // The video types Gemini lists as supported.
        VIDEO_TYPES.put("mp4", "video/mp4");
        VIDEO_TYPES.put("mpeg", "video/mpeg");
        VIDEO_TYPES.put("mpg", "video/mpg");
        VIDEO_TYPES.put("mov", "video/mov");
        VIDEO_TYPES.put("avi", "video/avi");
        VIDEO_TYPES.put("flv", "video/x-flv");
        VIDEO_TYPES.put("webm", "video/webm");
        VIDEO_TYPES.put("wmv", "video/wmv");
        VIDEO_TYPES.put("3gp", "video/3gpp");
    }

    private VideoLinks() {
    }

    public static List<Video> find(String text) {
        Map<String, Video> found = new LinkedHashMap<>();
        Matcher matcher = LINK.matcher(text);
        while (matcher.find() && found.size() < MAX_VIDEOS) {
            String link = trimTrailingPunctuation(matcher.group());
            Video video = video(link);
            if (video != null) {
                found.putIfAbsent(video.uri(), video);
            }
        }
        return List.copyOf(new ArrayList<>(found.values()));
    }

    /** The video a link points to, or {@code null}. */
    static Video video(String link) {
        URI uri;
        try {
            uri = URI.create(link);
        } catch (IllegalArgumentException notAUri) {
            return null;
        }
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        String youtubeId = youtubeId(host, path, uri.getRawQuery());
        if (youtubeId != null) {
            return new Video("https://www.youtube.com/watch?v=" + youtubeId, null);
        }
        int dot = path.lastIndexOf('.');
        if (dot > path.lastIndexOf('/') && dot + 1 < path.length()) {
            String type = VIDEO_TYPES.get(path.substring(dot + 1).toLowerCase(Locale.ROOT));
            if (type != null && !host.isEmpty()) {
                return new Video(link, type);
            }
        }
        return null;
    }

    private static String youtubeId(String host, String path, String query) {
        String candidate = null;
        if (host.equals("youtu.be")) {
            candidate = firstSegment(path);
        } else if (host.equals("youtube.com") || host.endsWith(".youtube.com")) {
            if (path.equals("/watch") && query != null) {
                for (String pair : query.split("&")) {
                    if (pair.startsWith("v=")) {
                        candidate = pair.substring(2);
                        break;
                    }
                }
            } else {
                for (String prefix : List.of("/shorts/", "/live/", "/embed/", "/v/")) {
                    if (path.startsWith(prefix)) {
                        candidate = firstSegment(path.substring(prefix.length() - 1));
                        break;
                    }
                }
            }
        }
        return candidate != null && YOUTUBE_ID.matcher(candidate).matches() ? candidate : null;
    }

    private static String firstSegment(String path) {
        String rest = path.startsWith("/") ? path.substring(1) : path;
        int slash = rest.indexOf('/');
        return slash < 0 ? rest : rest.substring(0, slash);
    }

    /** A link at the end of a sentence or in parentheses: "see https://youtu.be/x." or "(https://…)". */
    private static String trimTrailingPunctuation(String link) {
        String trimmed = link;
        while (!trimmed.isEmpty()) {
            char last = trimmed.charAt(trimmed.length() - 1);
            if (".,;:!?".indexOf(last) >= 0) {
                trimmed = trimmed.substring(0, trimmed.length() - 1);
            } else if (last == ')' && count(trimmed, '(') < count(trimmed, ')')) {
                trimmed = trimmed.substring(0, trimmed.length() - 1);
            } else {
                break;
            }
        }
        return trimmed;
    }

    private static long count(String text, char c) {
        return text.chars().filter(ch -> ch == c).count();
    }
}
