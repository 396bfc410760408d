package dev.skillforge.server.skill.diff;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.patch.Patch;
import dev.skillforge.server.skill.SkillFolder;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillText;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What changed between two versions of a skill, file by file: each file added, removed or changed,
 * with a unified diff (three lines of context) for text files. Files that did not change are left
 * out. java-diff-utils computes the line differences (Myers' algorithm, as git does).
 */
public final class VersionDiff {

    /** Text files larger than this are said to have changed, without a line-by-line diff (it would cost too much). */
    static final int MAX_COMPARED_BYTES = 1024 * 1024;
    private static final int CONTEXT_LINES = 3;

    /** One file's change. */
    public enum Change { ADDED, REMOVED, CHANGED }

    /**
     * @param path  the file
     * @param diff  the unified diff of a text file ({@code ---}/{@code +++} headers, then hunks), or empty for a file that
     *              is not text or is too large to compare
     */
    public record FileChange(SkillPath path, Change change, long sizeBefore, long sizeAfter, Optional<String> diff) {
    }

    private VersionDiff() {
    }

    /** The changes from {@code before} (null: nothing, every file is added) to {@code after} (null: every file is removed). */
    public static List<FileChange> between(SkillFolder before, SkillFolder after) {
        SortedSet<SkillPath> paths = new TreeSet<>();
        if (before != null) {
            paths.addAll(before.files().keySet());
        }
        if (after != null) {
            paths.addAll(after.files().keySet());
        }
        List<FileChange> changes = new ArrayList<>();
        for (SkillPath path : paths) {
            byte[] old = before == null ? null : before.files().get(path);
            byte[] now = after == null ? null : after.files().get(path);
            if (old != null && now != null && Arrays.equals(old, now)) {
                continue;
            }
            Change change = old == null ? Change.ADDED : now == null ? Change.REMOVED : Change.CHANGED;
            changes.add(new FileChange(path, change, old == null ? 0 : old.length, now == null ? 0 : now.length,
                    unified(path, old == null ? new byte[0] : old, now == null ? new byte[0] : now)));
        }
        return List.copyOf(changes);
    }

    private static Optional<String> unified(SkillPath path, byte[] old, byte[] now) {
        if (old.length > MAX_COMPARED_BYTES || now.length > MAX_COMPARED_BYTES) {
            return Optional.empty();
        }
        Optional<String> oldText = SkillText.decode(old);
        Optional<String> newText = SkillText.decode(now);
        if (oldText.isEmpty() || newText.isEmpty()) {
            return Optional.empty();
        }
        List<String> oldLines = lines(oldText.get());
        List<String> newLines = lines(newText.get());
        Patch<String> patch = DiffUtils.diff(oldLines, newLines);
        List<String> unified = UnifiedDiffUtils.generateUnifiedDiff("a/" + path, "b/" + path, oldLines, patch, CONTEXT_LINES);
        return Optional.of(String.join("\n", unified) + "\n");
    }

    private static List<String> lines(String text) {
        return text.isEmpty() ? List.of() : Arrays.asList(text.split("\r?\n", -1));
    }
}
