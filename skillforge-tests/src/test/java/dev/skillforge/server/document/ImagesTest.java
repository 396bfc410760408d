package dev.skillforge.server.document;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.server.provider.anthropic.AnthropicWire;
import dev.skillforge.server.provider.gemini.GeminiWire;
import dev.skillforge.server.provider.openai.OpenAiChatWire;
import dev.skillforge.testkit.TestImages;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Reading attached images (their bytes decide what they are, their headers how big) and what each provider's API takes of them. */
class ImagesTest {

    private static Attachment read(String name, String type, byte[] data) {
        return Documents.read(List.of(new Upload(name, type, data)), new Cancellation()).getFirst().attachment();
    }

    private static DocumentException refusal(String name, String type, byte[] data) {
        DocumentException e = catchThrowableOfType(DocumentException.class, () -> read(name, type, data));
        assertThat(e).as("a refusal of %s", name).isNotNull();
        return e;
    }

    @Test
    void eachFormatIsKnownByItsBytesAndSizedByItsHeaderAndKeptAsItsOwnBase64() {
        record Case(String name, byte[] data, String type, int width, int height) {
        }
        for (Case c : List.of(new Case("a.png", TestImages.png(640, 480), "image/png", 640, 480),
                new Case("b.jpg", TestImages.jpeg(321, 123), "image/jpeg", 321, 123),
                new Case("c.gif", TestImages.gif(17, 9), "image/gif", 17, 9),
                new Case("d.webp", TestImages.WEBP_1X1, "image/webp", 1, 1))) {
            Attachment image = read(c.name(), "", c.data());
            assertThat(image.isImage()).isTrue();
            assertThat(image.mediaType()).as(c.name()).isEqualTo(c.type());
            assertThat(image.image().width()).as(c.name()).isEqualTo(c.width());
            assertThat(image.image().height()).as(c.name()).isEqualTo(c.height());
            assertThat(image.image().base64()).isEqualTo(Base64.getEncoder().encodeToString(c.data()));
            assertThat(image.promptText()).as("an image is seen, not read").isEmpty();
            assertThat(image.size()).isEqualTo(c.data().length);
        }
        assertThat(read("photo", "image/jpg", TestImages.jpeg(10, 20)).mediaType()).as("image/jpg is JPEG").isEqualTo("image/jpeg");
        assertThat(read("upload.bin", "application/octet-stream", TestImages.png(3, 4)).mediaType()).as("the bytes decide")
                .isEqualTo("image/png");
    }

    @Test
    void aWebpOfEachKindOfChunkIsSizedFromItsOwnHeader() {
        byte[] lossy = riff("VP8 ", new byte[]{0, 0, 0, (byte) 0x9D, 0x01, 0x2A, (byte) 200, 0, (byte) 100, 0});
        byte[] extended = riff("VP8X", new byte[]{0, 0, 0, 0, (byte) 0xDF, 0x07, 0, 0x37, 0x04, 0});
        assertThat(read("lossy.webp", "image/webp", lossy).image()).extracting(Attachment.Image::width, Attachment.Image::height)
                .containsExactly(200, 100);
        assertThat(read("extended.webp", "image/webp", extended).image()).extracting(Attachment.Image::width, Attachment.Image::height)
                .containsExactly(2016, 1080);
    }

    @Test
    void hostileImagesAreClearRefusals() {
        byte[] png = TestImages.png(32, 32);
        DocumentException lying = refusal("shot.jpg", "image/jpeg", png);
        assertThat(lying.kind()).isEqualTo(DocumentException.Kind.UNSUPPORTED);
        assertThat(lying.getMessage()).isEqualTo("'shot.jpg' is declared image/jpeg, but its bytes are a PNG: send it as image/png"
                + " (a file's type must say what it holds)");
        assertThat(refusal("shot.jpg", "", png).getMessage()).as("the name claims too").startsWith("'shot.jpg' is named .jpg, but its bytes are a PNG");

        DocumentException text = refusal("notes.png", "", "just some notes".getBytes(StandardCharsets.UTF_8));
        assertThat(text.kind()).isEqualTo(DocumentException.Kind.UNSUPPORTED);
        assertThat(text.code()).isEqualTo("unsupported_attachment_type");
        assertThat(text.getMessage()).startsWith("'notes.png' is named .png, but its bytes are not a PNG, JPEG, WebP or GIF image");

        DocumentException cut = refusal("cut.png", "image/png", TestImages.truncated(png, 20));
        assertThat(cut.kind()).isEqualTo(DocumentException.Kind.INVALID);
        assertThat(cut.getMessage()).isEqualTo("'cut.png' is cut short: its PNG header ends at byte 20, before the image's size");
        assertThat(refusal("cut.jpg", "image/jpeg", TestImages.truncated(TestImages.jpeg(8, 8), 30)).getMessage()).contains("cut short");
        assertThat(refusal("cut.gif", "image/gif", "GIF89a\u0001".getBytes(StandardCharsets.ISO_8859_1)).getMessage()).contains("cut short");

        DocumentException bomb = refusal("bomb.png", "image/png", TestImages.pngHeader(100_000, 100_000));
        assertThat(bomb.kind()).isEqualTo(DocumentException.Kind.INVALID);
        assertThat(bomb.code()).isEqualTo("image_too_big");
        assertThat(bomb.getMessage()).isEqualTo("'bomb.png' is 100000x100000 pixels; the limit is 8000 on a side: scale it down");
        assertThat(refusal("huge.png", "image/png", TestImages.pngHeader(0xFFFFFFFFL, 1)).code()).as("past 2^31 too").isEqualTo("image_too_big");
        assertThat(refusal("none.png", "image/png", TestImages.pngHeader(0, 10)).getMessage()).contains("at least one");

        assertThat(refusal("scan.bmp", "image/bmp", new byte[]{'B', 'M', 0, 0}).getMessage())
                .isEqualTo("'scan.bmp' is image/bmp: SkillForge accepts PNG, JPEG, WebP or GIF images");
        assertThat(refusal("photo.heic", "image/heic", new byte[16]).kind()).isEqualTo(DocumentException.Kind.UNSUPPORTED);
    }

    @Test
    void anSvgIsNeverAnImageItsSourceIsReadAsTextOrItIsRefused() {
        byte[] svg = "<svg><script>alert(1)</script></svg>".getBytes(StandardCharsets.UTF_8);
        DocumentException refused = refusal("logo.svg", "image/svg+xml", svg);
        assertThat(refused.kind()).isEqualTo(DocumentException.Kind.UNSUPPORTED);
        assertThat(refused.getMessage()).contains("an SVG is not accepted as an image");
        Attachment source = read("logo.svg", "", svg);
        assertThat(source.isImage()).isFalse();
        assertThat(source.promptText()).contains("<svg><script>alert(1)</script></svg>");
    }

    // ------------------------------------------------------------------------------ what each API takes

    @Test
    void aModelThatDoesNotSeeRefusesImagesNamingTheModel() {
        DocumentException e = catchThrowableOfType(DocumentException.class,
                () -> OpenAiChatWire.VISION.seeing(false).check("deepseek-chat", List.of(), List.of(image("a.png", "image/png", 10, 10, 100))));
        assertThat(e.kind()).isEqualTo(DocumentException.Kind.UNSUPPORTED);
        assertThat(e.code()).isEqualTo("model_sees_no_images");
        assertThat(e.getMessage()).startsWith("The model deepseek-chat does not see images, so 'a.png' cannot be sent to it");
        OpenAiChatWire.VISION.seeing(false).check("deepseek-chat", List.of(), List.of()); // nothing added: nothing to refuse
    }

    @Test
    void eachApisOwnLimitsAreClearRefusals() {
        Attachment gif = image("a.gif", "image/gif", 10, 10, 100);
        DocumentException noGif = catchThrowableOfType(DocumentException.class, () -> GeminiWire.VISION.check("gemini-2.5-flash", List.of(), List.of(gif)));
        assertThat(noGif.kind()).isEqualTo(DocumentException.Kind.UNSUPPORTED);
        assertThat(noGif.getMessage()).isEqualTo("'a.gif' is a GIF, which gemini-2.5-flash does not take: send it as PNG, JPEG, WebP");
        OpenAiChatWire.VISION.check("gpt-4o", List.of(), List.of(gif));

        Attachment big = image("big.png", "image/png", 100, 100, 4 * 1024 * 1024);
        assertThat(catchThrowableOfType(DocumentException.class, () -> AnthropicWire.VISION.check("claude-sonnet-5-5", List.of(), List.of(big))).kind())
                .as("Anthropic takes 5 MiB of base64: 3.75 MiB of image").isEqualTo(DocumentException.Kind.TOO_LARGE);

        List<Attachment> hundred = new ArrayList<>(Collections.nCopies(100, image("x.png", "image/png", 100, 100, 100)));
        DocumentException many = catchThrowableOfType(DocumentException.class,
                () -> AnthropicWire.VISION.check("claude-sonnet-5-5", hundred, List.of(image("one-more.png", "image/png", 10, 10, 10))));
        assertThat(many.kind()).isEqualTo(DocumentException.Kind.INVALID);
        assertThat(many.code()).isEqualTo("too_many_images");
        assertThat(many.getMessage()).contains("at most 100 images").contains("this one would carry 101");

        List<Attachment> twenty = new ArrayList<>(Collections.nCopies(20, image("x.png", "image/png", 100, 100, 100)));
        DocumentException wide = catchThrowableOfType(DocumentException.class,
                () -> AnthropicWire.VISION.check("claude-sonnet-5-5", twenty, List.of(image("wide.png", "image/png", 2001, 100, 100))));
        assertThat(wide.code()).isEqualTo("image_too_big");
        assertThat(wide.getMessage()).contains("at most 2000 on a side in a request of 21 images or more");
        AnthropicWire.VISION.check("claude-sonnet-5-5", twenty.subList(0, 19), List.of(image("wide.png", "image/png", 2001, 100, 100)));

        List<Attachment> heavy = new ArrayList<>(Collections.nCopies(3, image("x.png", "image/png", 100, 100, 4 * 1024 * 1024)));
        assertThat(catchThrowableOfType(DocumentException.class, () -> GeminiWire.VISION.check("gemini-2.5-flash", heavy,
                List.of(image("last.png", "image/png", 10, 10, 1024 * 1024)))).getMessage())
                .contains("a request to gemini-2.5-flash may carry at most 12582912 bytes of images");
    }

    private static Attachment image(String name, String type, int width, int height, long size) {
        return Attachment.image("0".repeat(64), name, type, size, new Attachment.Image(width, height, "AAAA"));
    }

    private static byte[] riff(String chunk, byte[] payload) {
        byte[] out = new byte[20 + payload.length];
        System.arraycopy("RIFF".getBytes(StandardCharsets.US_ASCII), 0, out, 0, 4);
        System.arraycopy("WEBP".getBytes(StandardCharsets.US_ASCII), 0, out, 8, 4);
        System.arraycopy(chunk.getBytes(StandardCharsets.US_ASCII), 0, out, 12, 4);
        System.arraycopy(payload, 0, out, 20, payload.length);
        return out;
    }
}
