package dev.skillforge.server.exec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The seccomp filter every sandboxed program runs under: a classic BPF program, loaded by bubblewrap
 * ({@code --seccomp FD}) before it starts the program, that refuses the system calls a confined command
 * never needs (in the manner of Flatpak's, Docker's default and the coding agents' sandboxes). What it
 * refuses, and why, is {@link #RULES}; everything else is allowed.
 *
 * <p>Built for the machine's own architecture (x86_64 or aarch64: {@link #forThisMachine()}); a call made
 * through another architecture's convention (x86's 32-bit {@code int 0x80}, x32) kills the process, since
 * the numbers below would mean other calls there.
 */
public final class SeccompFilter {

    /** How a refused call fails. */
    enum Refusal {
        /** {@code EPERM}: "Operation not permitted", what a program expects when it lacks the privilege. */
        NOT_PERMITTED(1),
        /** {@code ENOSYS}: "Function not implemented", so C libraries fall back to an older call they can be checked on. */
        NOT_IMPLEMENTED(38),
        /** {@code EAFNOSUPPORT}: "Address family not supported". */
        FAMILY_NOT_SUPPORTED(97);

        final int errno;

        Refusal(int errno) {
            this.errno = errno;
        }
    }

    /** What a rule looks at: the call alone, one argument's bits, or one argument's value. */
    sealed interface Condition {
        /** Always refused. */
        record Always() implements Condition {
        }

        /** Refused when argument {@code index} has any of {@code mask}'s bits (its low 32 bits are compared). */
        record AnyBit(int index, int mask) implements Condition {
        }

        /** Refused when argument {@code index} (its low 32 bits) is one of {@code refused}. */
        record ValueIn(int index, List<Integer> refused) implements Condition {
            public ValueIn {
                refused = List.copyOf(refused);
            }
        }

        /** Refused unless argument {@code index} (its low 32 bits) is one of {@code allowed}. */
        record ValueNotIn(int index, List<Integer> allowed) implements Condition {
            public ValueNotIn {
                allowed = List.copyOf(allowed);
            }
        }
    }

    /**
     * One refused call.
     *
     * @param name    the system call's name
     * @param x86     its number on x86_64, or -1 where it does not exist
     * @param generic its number on aarch64 (the kernel's generic table), or -1 where it does not exist
     * @param when    when it is refused
     * @param refusal how
     * @param why     what a confined command would do with it, for SECURITY.md
     */
    record Rule(String name, int x86, int generic, Condition when, Refusal refusal, String why) {
    }

    private static final Condition ALWAYS = new Condition.Always();
    private static final int SET_ID_BITS = 06000; // S_ISUID | S_ISGID
    /** CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET and NEWTIME. */
    private static final int NEW_NAMESPACES = 0x7E020080;
    private static final int TIOCSTI = 0x5412;
    private static final int TIOCLINUX = 0x541C;

    private static final String NAMESPACES = "new namespaces and mounts: the way out of a sandbox";
    private static final String KERNEL = "changes the kernel or the machine";
    private static final String SET_ID = "a set-user-id or set-group-id file, which another account could run to become the sandbox's user";

    /** Every refused call, in the order the filter tests them. */
    static final List<Rule> RULES = List.of(
            new Rule("mount", 165, 40, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("umount2", 166, 39, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("pivot_root", 155, 41, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("chroot", 161, 51, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("unshare", 272, 97, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("setns", 308, 268, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("clone", 56, 220, new Condition.AnyBit(0, NEW_NAMESPACES), Refusal.NOT_PERMITTED,
                    "with a new-namespace flag: " + NAMESPACES + " (threads and forks are allowed)"),
            new Rule("clone3", 435, 435, ALWAYS, Refusal.NOT_IMPLEMENTED,
                    "its flags are in memory a filter cannot read; the C library then uses clone, checked above"),
            new Rule("open_tree", 428, 428, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("move_mount", 429, 429, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("fsopen", 430, 430, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("fsconfig", 431, 431, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("fsmount", 432, 432, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("fspick", 433, 433, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("mount_setattr", 442, 442, ALWAYS, Refusal.NOT_PERMITTED, NAMESPACES),
            new Rule("chmod", 90, -1, new Condition.AnyBit(1, SET_ID_BITS), Refusal.NOT_PERMITTED, SET_ID),
            new Rule("fchmod", 91, 52, new Condition.AnyBit(1, SET_ID_BITS), Refusal.NOT_PERMITTED, SET_ID),
            new Rule("fchmodat", 268, 53, new Condition.AnyBit(2, SET_ID_BITS), Refusal.NOT_PERMITTED, SET_ID),
            new Rule("fchmodat2", 452, 452, ALWAYS, Refusal.NOT_IMPLEMENTED, SET_ID + " (the C library falls back to fchmodat)"),
            new Rule("open", 2, -1, new Condition.AnyBit(2, SET_ID_BITS), Refusal.NOT_PERMITTED, "creating " + SET_ID),
            new Rule("creat", 85, -1, new Condition.AnyBit(1, SET_ID_BITS), Refusal.NOT_PERMITTED, "creating " + SET_ID),
            new Rule("openat", 257, 56, new Condition.AnyBit(3, SET_ID_BITS), Refusal.NOT_PERMITTED, "creating " + SET_ID),
            new Rule("openat2", 437, 437, ALWAYS, Refusal.NOT_IMPLEMENTED,
                    "its mode is in memory a filter cannot read; the C library uses openat, checked above"),
            new Rule("mknod", 133, -1, new Condition.AnyBit(1, SET_ID_BITS), Refusal.NOT_PERMITTED, "creating " + SET_ID),
            new Rule("mknodat", 259, 33, new Condition.AnyBit(2, SET_ID_BITS), Refusal.NOT_PERMITTED, "creating " + SET_ID),
            new Rule("ioctl", 16, 29, new Condition.ValueIn(1, List.of(TIOCSTI, TIOCLINUX)), Refusal.NOT_PERMITTED,
                    "TIOCSTI and TIOCLINUX: typing into a terminal"),
            new Rule("init_module", 175, 105, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("finit_module", 313, 273, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("delete_module", 176, 106, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("kexec_load", 246, 104, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("kexec_file_load", 320, 294, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("reboot", 169, 142, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("swapon", 167, 224, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("swapoff", 168, 225, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("syslog", 103, 116, ALWAYS, Refusal.NOT_PERMITTED, "reads the kernel's log"),
            new Rule("acct", 163, 89, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("quotactl", 179, 60, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("quotactl_fd", 443, 443, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("settimeofday", 164, 170, ALWAYS, Refusal.NOT_PERMITTED, "sets the machine's clock"),
            new Rule("clock_settime", 227, 112, ALWAYS, Refusal.NOT_PERMITTED, "sets the machine's clock"),
            new Rule("clock_adjtime", 305, 266, ALWAYS, Refusal.NOT_PERMITTED, "sets the machine's clock"),
            new Rule("adjtimex", 159, 171, ALWAYS, Refusal.NOT_PERMITTED, "sets the machine's clock"),
            new Rule("sethostname", 170, 161, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("setdomainname", 171, 162, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("iopl", 172, -1, ALWAYS, Refusal.NOT_PERMITTED, "reaches hardware ports"),
            new Rule("ioperm", 173, -1, ALWAYS, Refusal.NOT_PERMITTED, "reaches hardware ports"),
            new Rule("uselib", 134, -1, ALWAYS, Refusal.NOT_PERMITTED, "an obsolete loader call"),
            new Rule("lookup_dcookie", 212, 18, ALWAYS, Refusal.NOT_PERMITTED, "kernel profiling"),
            new Rule("nfsservctl", 180, 42, ALWAYS, Refusal.NOT_PERMITTED, KERNEL),
            new Rule("vhangup", 153, 58, ALWAYS, Refusal.NOT_PERMITTED, "hangs up terminals"),
            new Rule("add_key", 248, 217, ALWAYS, Refusal.NOT_PERMITTED, "the kernel keyring, not namespaced"),
            new Rule("request_key", 249, 218, ALWAYS, Refusal.NOT_PERMITTED, "the kernel keyring, not namespaced"),
            new Rule("keyctl", 250, 219, ALWAYS, Refusal.NOT_PERMITTED, "the kernel keyring, not namespaced"),
            new Rule("ptrace", 101, 117, ALWAYS, Refusal.NOT_PERMITTED, "debugging other processes"),
            new Rule("process_vm_readv", 310, 270, ALWAYS, Refusal.NOT_PERMITTED, "reads other processes' memory"),
            new Rule("process_vm_writev", 311, 271, ALWAYS, Refusal.NOT_PERMITTED, "writes other processes' memory"),
            new Rule("kcmp", 312, 272, ALWAYS, Refusal.NOT_PERMITTED, "compares other processes' kernel state"),
            new Rule("perf_event_open", 298, 241, ALWAYS, Refusal.NOT_PERMITTED, "kernel profiling, a common kernel attack surface"),
            new Rule("bpf", 321, 280, ALWAYS, Refusal.NOT_PERMITTED, "programs the kernel, a common kernel attack surface"),
            new Rule("userfaultfd", 323, 282, ALWAYS, Refusal.NOT_PERMITTED, "pauses the kernel mid-copy, used by kernel exploits"),
            new Rule("io_uring_setup", 425, 425, ALWAYS, Refusal.NOT_PERMITTED, "runs calls past this filter, a common kernel attack surface"),
            new Rule("io_uring_enter", 426, 426, ALWAYS, Refusal.NOT_PERMITTED, "runs calls past this filter"),
            new Rule("io_uring_register", 427, 427, ALWAYS, Refusal.NOT_PERMITTED, "runs calls past this filter"),
            new Rule("open_by_handle_at", 304, 265, ALWAYS, Refusal.NOT_PERMITTED, "opens files by handle, around the mounts"),
            new Rule("name_to_handle_at", 303, 264, ALWAYS, Refusal.NOT_PERMITTED, "file handles, around the mounts"),
            new Rule("fanotify_init", 300, 262, ALWAYS, Refusal.NOT_PERMITTED, "watches the whole file system"),
            new Rule("mbind", 237, 235, ALWAYS, Refusal.NOT_PERMITTED, "the machine's memory placement"),
            new Rule("set_mempolicy", 238, 237, ALWAYS, Refusal.NOT_PERMITTED, "the machine's memory placement"),
            new Rule("migrate_pages", 256, 238, ALWAYS, Refusal.NOT_PERMITTED, "the machine's memory placement"),
            new Rule("move_pages", 279, 239, ALWAYS, Refusal.NOT_PERMITTED, "the machine's memory placement"),
            new Rule("set_mempolicy_home_node", 450, 450, ALWAYS, Refusal.NOT_PERMITTED, "the machine's memory placement"),
            new Rule("personality", 135, 92, new Condition.ValueNotIn(0, List.of(0x0, 0x8, 0x20000, 0x20008, 0xffffffff)),
                    Refusal.NOT_PERMITTED, "other than Linux's own (and the query): turns off address randomisation"),
            new Rule("socket", 41, 198, new Condition.ValueNotIn(0, List.of(1, 2, 10, 16)), Refusal.FAMILY_NOT_SUPPORTED,
                    "other than local, IPv4, IPv6 and netlink sockets: raw packets, Bluetooth, kernel crypto…"));

    private static final int AUDIT_ARCH_X86_64 = 0xC000003E;
    private static final int AUDIT_ARCH_AARCH64 = 0xC00000B7;
    private static final int X32_SYSCALL_BIT = 0x40000000;

    private static final short LOAD_WORD = 0x20; // BPF_LD | BPF_W | BPF_ABS
    private static final short JUMP_EQUAL = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    private static final short JUMP_AT_LEAST = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    private static final short JUMP_ANY_BIT = 0x45; // BPF_JMP | BPF_JSET | BPF_K
    private static final short RETURN = 0x06; // BPF_RET | BPF_K
    static final int RET_KILL_PROCESS = 0x80000000;
    static final int RET_ERRNO = 0x00050000;
    static final int RET_ALLOW = 0x7fff0000;
    /** Offsets in struct seccomp_data: the call's number, the architecture, then six 64-bit arguments (low half first). */
    static final int NR = 0;
    static final int ARCH = 4;
    static final int ARGS = 16;

    /** The architectures a filter can be built for. */
    enum Architecture {
        X86_64(AUDIT_ARCH_X86_64),
        AARCH64(AUDIT_ARCH_AARCH64);

        final int auditArch;

        Architecture(int auditArch) {
            this.auditArch = auditArch;
        }

        int number(Rule rule) {
            return this == X86_64 ? rule.x86() : rule.generic();
        }
    }

    private final Architecture architecture;
    private final byte[] program;

    private SeccompFilter(Architecture architecture) {
        this.architecture = architecture;
        this.program = assemble(architecture);
    }

    /** The filter for {@code architecture}. */
    static SeccompFilter of(Architecture architecture) {
        return new SeccompFilter(architecture);
    }

    /** The filter for the architecture this JVM runs on, or empty where no table of call numbers exists here. */
    public static Optional<SeccompFilter> forThisMachine() {
        return switch (System.getProperty("os.arch", "").toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> Optional.of(of(Architecture.X86_64));
            case "aarch64", "arm64" -> Optional.of(of(Architecture.AARCH64));
            default -> Optional.empty();
        };
    }

    Architecture architecture() {
        return architecture;
    }

    /** The program as the kernel reads it: {@code struct sock_filter} records in the machine's (little-endian) order. */
    public byte[] program() {
        return program.clone();
    }

    /** The names of the refused calls that exist on this architecture, for logs and documents. */
    public List<String> refusedCalls() {
        return RULES.stream().filter(rule -> architecture.number(rule) >= 0).map(Rule::name).toList();
    }

    private static byte[] assemble(Architecture architecture) {
        List<int[]> code = new ArrayList<>();
        code.add(instruction(LOAD_WORD, 0, 0, ARCH));
        code.add(instruction(JUMP_EQUAL, 1, 0, architecture.auditArch));
        code.add(instruction(RETURN, 0, 0, RET_KILL_PROCESS));
        code.add(instruction(LOAD_WORD, 0, 0, NR));
        if (architecture == Architecture.X86_64) {
            code.add(instruction(JUMP_AT_LEAST, 0, 1, X32_SYSCALL_BIT));
            code.add(instruction(RETURN, 0, 0, RET_KILL_PROCESS));
        }
        for (Rule rule : RULES) {
            int number = architecture.number(rule);
            if (number < 0) {
                continue;
            }
            List<int[]> body = body(rule);
            code.add(instruction(JUMP_EQUAL, 0, body.size(), number));
            code.addAll(body);
        }
        code.add(instruction(RETURN, 0, 0, RET_ALLOW));
        ByteBuffer bytes = ByteBuffer.allocate(code.size() * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int[] op : code) {
            bytes.putShort((short) op[0]).put((byte) op[1]).put((byte) op[2]).putInt(op[3]);
        }
        return bytes.array();
    }

    /** What runs once the call's number matched: every path ends in a return, so the next rule's test is never reached. */
    private static List<int[]> body(Rule rule) {
        int refuse = RET_ERRNO | rule.refusal().errno;
        return switch (rule.when()) {
            case Condition.Always always -> List.of(instruction(RETURN, 0, 0, refuse));
            case Condition.AnyBit any -> List.of(
                    instruction(LOAD_WORD, 0, 0, ARGS + 8 * any.index()),
                    instruction(JUMP_ANY_BIT, 0, 1, any.mask()),
                    instruction(RETURN, 0, 0, refuse),
                    instruction(RETURN, 0, 0, RET_ALLOW));
            case Condition.ValueIn in -> valueTests(in.index(), in.refused(), refuse, RET_ALLOW);
            case Condition.ValueNotIn notIn -> valueTests(notIn.index(), notIn.allowed(), RET_ALLOW, refuse);
        };
    }

    /** Loads argument {@code index}, returns {@code listed} when it equals one of {@code values}, else {@code otherwise}. */
    private static List<int[]> valueTests(int index, List<Integer> values, int listed, int otherwise) {
        List<int[]> tests = new ArrayList<>();
        tests.add(instruction(LOAD_WORD, 0, 0, ARGS + 8 * index));
        int count = values.size();
        for (int i = 0; i < count; i++) {
            tests.add(instruction(JUMP_EQUAL, count - i, 0, values.get(i))); // to the second return below
        }
        tests.add(instruction(RETURN, 0, 0, otherwise));
        tests.add(instruction(RETURN, 0, 0, listed));
        return tests;
    }

    private static int[] instruction(short code, int jumpIfTrue, int jumpIfFalse, int k) {
        if (jumpIfTrue > 255 || jumpIfFalse > 255) {
            throw new IllegalStateException("a BPF jump reaches at most 255 instructions");
        }
        return new int[] {code, jumpIfTrue, jumpIfFalse, k};
    }
}
