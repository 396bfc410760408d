package dev.skillforge.server.provider.gemini;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class VideoLinksTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
            "https://youtube.com/watch?feature=share&v=dQw4w9WgXcQ&t=10s",
            "http://m.youtube.com/watch?v=dQw4w9WgXcQ",
            "https://youtu.be/dQw4w9WgXcQ",
            "https://youtu.be/dQw4w9WgXcQ?si=abc",
            "https://www.youtube.com/shorts/dQw4w9WgXcQ",
            "https://www.youtube.com/live/dQw4w9WgXcQ?feature=share",
            "https://www.youtube.com/embed/dQw4w9WgXcQ",
    })
    void everyFormOfAYouTubeLinkIsSentInTheFormGeminiDocuments(String link) {
        assertThat(VideoLinks.find("learn from " + link + ", please"))
                .containsExactly(new VideoLinks.Video("https://www.youtube.com/watch?v=dQw4w9WgXcQ", null));
    }

    @Test
    void sameVideoTwiceIsOnePartAndOrderIsFirstAppearance() {
        assertThat(VideoLinks.find("(https://youtu.be/aaaaaaaaaaa) then https://x.example/b.webm and "
                + "https://www.youtube.com/watch?v=aaaaaaaaaaa."))
                .containsExactly(new VideoLinks.Video("https://www.youtube.com/watch?v=aaaaaaaaaaa", null),
                        new VideoLinks.Video("https://x.example/b.webm", "video/webm"));
    }

    @Test
    void pagesChannelsAndMalformedIdsAreNotVideos() {
        assertThat(VideoLinks.find("https://www.youtube.com/@channel https://www.youtube.com/watch?v=short "
                + "https://example.com/video https://example.com/a.mp4.html https://youtu.be/")).isEmpty();
    }

    @Test
    void atMostTenVideosAreTaken() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 12; i++) {
            text.append("https://v.example/clip").append(i).append(".mp4 ");
        }
        assertThat(VideoLinks.find(text.toString())).hasSize(VideoLinks.MAX_VIDEOS);
    }
}
