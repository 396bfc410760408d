package dev.skillforge.server.skill.zip;

import static dev.skillforge.server.skill.zip.HandMadeZip.file;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillforge.server.skill.SkillException;
import dev.skillforge.server.skill.SkillFolder;
import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillPath;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SkillZipReaderTest {

    private static final SkillLimits LIMITS = SkillLimits.DEFAULT;
    private final SkillZipReader reader = new SkillZipReader(LIMITS);

    static String skillMd(String name) {
        return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n# " + name + "\n";
    }

    private static Map<String, String> texts(SkillFolder folder) {
        Map<String, String> texts = new TreeMap<>();
        folder.files().forEach((path, bytes) -> texts.put(path.value(), new String(bytes, StandardCharsets.UTF_8)));
        return texts;
    }

    @Test
    void readsASkillMdAtTheRootNamedByItsFrontMatter() {
        byte[] zip = new HandMadeZip().add(file("SKILL.md", skillMd("cold-brew"))).add(file("scripts/steep.py", "print(16)\n")).bytes();

        SkillZipReader.Unpacked unpacked = reader.read(zip);

        assertThat(unpacked.skills()).singleElement().satisfies(skill -> {
            assertThat(skill.name().value()).isEqualTo("cold-brew");
            assertThat(texts(skill)).containsExactly(Map.entry("SKILL.md", skillMd("cold-brew")), Map.entry("scripts/steep.py", "print(16)\n"));
        });
    }

    @Test
    void readsOneFolderSeveralFoldersAndFoldersInsideOneMoreSkippingWhatOperatingSystemsAdd() {
        byte[] one = new HandMadeZip().add(file("tea/", "")).add(file("tea/SKILL.md", skillMd("tea"))).bytes();
        byte[] several = new HandMadeZip().add(file("tea/SKILL.md", skillMd("tea"))).add(file("coffee/SKILL.md", skillMd("coffee")))
                .add(file("coffee/references/beans.md", "Arabica.\n")).add(file("__MACOSX/coffee/._SKILL.md", "junk"))
                .add(file("coffee/.DS_Store", "junk")).bytes();
        byte[] wrapped = new HandMadeZip().add(file("my-skills/tea/SKILL.md", skillMd("tea")))
                .add(file("my-skills/coffee/SKILL.md", skillMd("coffee"))).bytes();

        assertThat(reader.read(one).skills()).extracting(s -> s.name().value()).containsExactly("tea");
        SkillZipReader.Unpacked unpacked = reader.read(several);
        assertThat(unpacked.skills()).extracting(s -> s.name().value()).containsExactlyInAnyOrder("tea", "coffee");
        assertThat(unpacked.skipped()).containsExactly("__MACOSX/coffee/._SKILL.md", "coffee/.DS_Store");
        assertThat(unpacked.skills()).filteredOn(s -> s.name().value().equals("coffee")).singleElement()
                .satisfies(s -> assertThat(texts(s)).containsKey("references/beans.md"));
        assertThat(reader.read(wrapped).skills()).extracting(s -> s.name().value()).containsExactlyInAnyOrder("tea", "coffee");
    }

    @Test
    void whatTheWriterWritesTheReaderReadsBackToTheSameBytes() throws Exception {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0, 0, (byte) 0xff, 1};
        SkillFolder folder = SkillFolder.of("cold-brew", Map.of(SkillPath.SKILL_MD, skillMd("cold-brew").getBytes(StandardCharsets.UTF_8),
                SkillPath.of("assets/logo.png"), png, SkillPath.of("references/caf\u00e9 notes.md"), "\u00e9\u2615\n".getBytes(StandardCharsets.UTF_8)),
                LIMITS);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (SkillZipWriter writer = new SkillZipWriter(out)) {
            writer.add(folder, 1_700_000_000_000L);
        }

        SkillFolder back = reader.read(out.toByteArray()).skills().getFirst();

        assertThat(back.manifest()).isEqualTo(folder.manifest());
        assertThat(back.file(SkillPath.of("assets/logo.png")).orElseThrow()).isEqualTo(png);
    }

    @Test
    void readsAZipMadeByJavasOwnZipOutputStreamWithDataDescriptors() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            zip.putNextEntry(new ZipEntry("tea/SKILL.md"));
            zip.write(skillMd("tea").getBytes(StandardCharsets.UTF_8));
            zip.putNextEntry(new ZipEntry("tea/scripts/brew.sh"));
            zip.write("echo brew\n".getBytes(StandardCharsets.UTF_8));
        }

        assertThat(texts(reader.read(out.toByteArray()).skills().getFirst())).containsEntry("scripts/brew.sh", "echo brew\n");
    }

    static Stream<Arguments> hostileZips() {
        byte[] zeros = new byte[4 * 1024 * 1024];
        byte[] notUtf8 = {'t', 'e', 'a', '/', (byte) 0xff, (byte) 0xfe, '.', 'm', 'd'};
        HandMadeZip manyFiles = new HandMadeZip().add(file("tea/SKILL.md", skillMd("tea")));
        for (int i = 0; i < 200; i++) {
            manyFiles.add(file("tea/assets/" + i + ".txt", "x"));
        }
        HandMadeZip manySkills = new HandMadeZip();
        for (int i = 0; i < 101; i++) {
            manySkills.add(file("s" + i + "/SKILL.md", skillMd("s" + i)));
        }
        String tea = skillMd("tea");
        return Stream.of(
                Arguments.of("a .. path", zip(file("../tea/SKILL.md", tea)), false, "has a .. part"),
                Arguments.of("a .. inside", zip(file("tea/SKILL.md", tea), file("tea/scripts/../../../etc/x", "x")), false, "has a .. part"),
                Arguments.of("an absolute path", zip(file("/tea/SKILL.md", tea)), false, "is an absolute path"),
                Arguments.of("a drive letter", zip(file("C:/tea/SKILL.md", tea)), false, "is an absolute path"),
                Arguments.of("backslashes", zip(file("tea\\SKILL.md", tea)), false, "uses backslashes"),
                Arguments.of("a .. directory", zip(file("../", ""), file("tea/SKILL.md", tea)), false, "has a .. part"),
                Arguments.of("a symbolic link", zip(file("tea/SKILL.md", tea), file("tea/scripts/x", "/etc/passwd").link()), false, "is a symbolic link"),
                Arguments.of("a device", zip(file("tea/SKILL.md", tea), file("tea/assets/dev", "").device()), false, "is a device"),
                Arguments.of("a name twice", zip(file("tea/SKILL.md", tea), file("tea/SKILL.md", skillMd("tea") + "evil\n")), false, "twice"),
                Arguments.of("a name not UTF-8", zip(file("tea/SKILL.md", tea), HandMadeZip.rawName(notUtf8, "x")), false, "is not UTF-8"),
                Arguments.of("a NUL in a name", zip(file("tea/SKILL.md\0.txt", tea)), false, "NUL"),
                Arguments.of("encryption", zip(file("tea/SKILL.md", tea).encrypted()), false, "is encrypted"),
                Arguments.of("an unknown method", zip(file("tea/SKILL.md", tea).method(12)), false, "method 12"),
                Arguments.of("a lying size", zip(file("tea/SKILL.md", tea).claimingSize(10)), false, "does not unpack to the 10 bytes"),
                Arguments.of("a wrong checksum", zip(file("tea/SKILL.md", tea).claimingCrc(42)), false, "checksum"),
                Arguments.of("overlapping entries", zip(file("tea/SKILL.md", tea), file("tea/assets/a.txt", tea).sharingDataOf(0)),
                        false, "overlap"),
                Arguments.of("another name in the local header", zip(file("tea/SKILL.md", tea).withLocalName("tea/evil.sh")), false,
                        "another name in its own header"),
                Arguments.of("no zip at all", "just text, not a zip".getBytes(StandardCharsets.UTF_8), false, "not a zip file"),
                Arguments.of("a cut zip", Arrays.copyOf(zip(file("tea/SKILL.md", tea)), 40), false, "not a zip file"),
                Arguments.of("no files", zip(file("tea/", "")), false, "holds no files"),
                Arguments.of("a file outside the three folders", zip(file("tea/SKILL.md", tea), file("tea/README.md", "hi")), false,
                        "\"tea/README.md\" cannot be imported: the file \"README.md\" is not allowed where it is"),
                Arguments.of("a file outside any folder", zip(file("tea/SKILL.md", tea), file("notes.txt", "hi")), false,
                        "lies outside any skill's folder"),
                Arguments.of("a folder without SKILL.md", zip(file("tea/SKILL.md", tea), file("coffee/references/a.md", "x")), false,
                        "\"coffee\" has no SKILL.md"),
                Arguments.of("a folder whose name is no skill's", zip(file("Tea Time/SKILL.md", tea)), false, "cannot be a skill's"),
                Arguments.of("more than 200 files", manyFiles.bytes(), true, "has 201 files; the limit is 200"),
                Arguments.of("more than 10 MiB", zip(file("tea/SKILL.md", tea), file("tea/assets/a.bin", random(4)),
                        file("tea/assets/b.bin", random(4)), file("tea/assets/c.bin", random(4))), true, "the limit is 10485760 bytes"),
                Arguments.of("a file over 5 MiB", zip(file("tea/SKILL.md", tea), file("tea/assets/a.bin", random(6))), true,
                        "the limit is 5242880 bytes a file"),
                Arguments.of("a bomb's ratio", zip(file("tea/SKILL.md", tea), file("tea/assets/zeros.bin", zeros)), true, "zip bomb"),
                Arguments.of("more than 100 skills", manySkills.bytes(), true, "holds 101 skills"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileZips")
    void aHostileZipIsRefusedWithAClearReason(String what, byte[] zip, boolean tooLarge, String reason) {
        assertThatThrownBy(() -> reader.read(zip)).isInstanceOfSatisfying(ZipRefusedException.class, e -> {
            assertThat(e.getMessage()).contains(reason).doesNotContain("\n");
            assertThat(e.tooLarge()).isEqualTo(tooLarge);
        });
    }

    @Test
    void aSkillThatIsNotValidIsRefusedWithEveryProblemNamingTheSkill() {
        byte[] zip = zip(file("tea/SKILL.md", "---\nname: coffee\ndescription: \"\"\nauthor: me\n---\n"),
                file("tea/assets/A.txt", "a"), file("tea/assets/a.txt", "b"));

        assertThatThrownBy(() -> reader.read(zip)).isInstanceOfSatisfying(SkillException.class, e -> {
            assertThat(e.kind()).isEqualTo(SkillException.Kind.INVALID);
            assertThat(e.problems()).allSatisfy(problem -> assertThat(problem).startsWith("skill tea: "));
            assertThat(String.join("\n", e.problems())).contains("differ only in case", "description is blank",
                    "\"author\" is not one of the Agent Skills specification's", "the front matter field name is \"coffee\"");
        });
    }

    private static byte[] zip(HandMadeZip.Entry... entries) {
        HandMadeZip zip = new HandMadeZip();
        List.of(entries).forEach(zip::add);
        return zip.bytes();
    }

    /** Bytes that do not compress, {@code mib} MiB of them. */
    private static byte[] random(int mib) {
        byte[] bytes = new byte[mib * 1024 * 1024];
        new java.util.Random(mib).nextBytes(bytes);
        return bytes;
    }
}
