package dev.skillforge.testkit;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;

/** Images for attachment tests: real ones drawn with ImageIO (which browsers and providers can decode), and hostile headers made by hand. */
public final class TestImages {

    /** A real 1x1 lossless WebP (ImageIO writes none): RIFF, WEBP, a VP8L chunk. */
    public static final byte[] WEBP_1X1 = Base64.getDecoder().decode("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==");

    private TestImages() {
    }

    /** A PNG of {@code width} x {@code height}: a coloured square with a diagonal, so a thumbnail shows something. */
    public static byte[] png(int width, int height) {
        return draw("png", width, height, BufferedImage.TYPE_INT_RGB);
    }

    public static byte[] jpeg(int width, int height) {
        return draw("jpeg", width, height, BufferedImage.TYPE_INT_RGB);
    }

    public static byte[] gif(int width, int height) {
        return draw("gif", width, height, BufferedImage.TYPE_BYTE_INDEXED);
    }

    /**
     * The signature and IHDR chunk of a PNG that claims {@code width} x {@code height} pixels, and nothing else: a
     * decompression bomb's header (a viewer would allocate width x height x 4 bytes before finding out).
     */
    public static byte[] pngHeader(long width, long height) {
        ByteBuffer header = ByteBuffer.allocate(33);
        header.put(new byte[]{(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'});
        header.putInt(13).put(new byte[]{'I', 'H', 'D', 'R'}).putInt((int) width).putInt((int) height);
        header.put(new byte[]{8, 6, 0, 0, 0}).putInt(0); // depth, colour type, compression, filter, interlace; a CRC nobody checks
        return header.array();
    }

    /** The first {@code length} bytes of {@code image}: a header cut short. */
    public static byte[] truncated(byte[] image, int length) {
        return Arrays.copyOf(image, length);
    }

    private static byte[] draw(String format, int width, int height, int type) {
        BufferedImage image = new BufferedImage(width, height, type);
        Graphics2D g = image.createGraphics();
        g.setColor(new Color(0x2F6FEB));
        g.fillRect(0, 0, width, height);
        g.setColor(new Color(0xF5A623));
        g.fillOval(width / 4, height / 4, Math.max(1, width / 2), Math.max(1, height / 2));
        g.setColor(Color.WHITE);
        g.drawLine(0, 0, width - 1, height - 1);
        g.dispose();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, format, out)) {
                throw new IllegalStateException("ImageIO has no writer for " + format);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
