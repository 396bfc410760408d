package dev.skillforge.server.exec;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter's program run by a classic-BPF interpreter written here from the kernel's definition (only the
 * instructions a seccomp filter may use), for both architectures: so the aarch64 program is checked too, on
 * a machine that cannot load it. BubblewrapTest loads the x86_64 one into the kernel.
 */
class SeccompFilterTest {

    static final int EPERM = 1;
    static final int ENOSYS = 38;
    static final int EAFNOSUPPORT = 97;

    /** One system call as the kernel shows it to a filter. */
    record Call(int nr, int arch, long... args) {
    }

    /** Runs {@code program} on {@code call}: what it returns. */
    static int run(byte[] program, Call call) {
        ByteBuffer code = ByteBuffer.wrap(program).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer data = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        data.putInt(0, call.nr()).putInt(4, call.arch()).putLong(8, 0);
        for (int i = 0; i < call.args().length; i++) {
            data.putLong(16 + 8 * i, call.args()[i]);
        }
        int accumulator = 0;
        int pc = 0;
        int steps = 0;
        while (true) {
            assertThat(++steps).as("the program ends").isLessThan(10_000);
            assertThat(pc * 8).as("the program counter stays inside").isLessThan(program.length);
            int op = code.getShort(pc * 8) & 0xffff;
            int jt = code.get(pc * 8 + 2) & 0xff;
            int jf = code.get(pc * 8 + 3) & 0xff;
            int k = code.getInt(pc * 8 + 4);
            pc++;
            switch (op) {
                case 0x20 -> {
                    assertThat(k % 4).as("aligned loads").isZero();
                    accumulator = data.getInt(k);
                }
                case 0x15 -> pc += accumulator == k ? jt : jf;
                case 0x35 -> pc += Integer.compareUnsigned(accumulator, k) >= 0 ? jt : jf;
                case 0x45 -> pc += (accumulator & k) != 0 ? jt : jf;
                case 0x06 -> {
                    return k;
                }
                default -> throw new AssertionError("an instruction the filter never uses: 0x" + Integer.toHexString(op));
            }
        }
    }

    static int errno(int code) {
        return SeccompFilter.RET_ERRNO | code;
    }

    @ParameterizedTest
    @EnumSource(SeccompFilter.Architecture.class)
    void everyRuleRefusesItsCallAndAllowsTheRest(SeccompFilter.Architecture architecture) {
        byte[] program = SeccompFilter.of(architecture).program();
        assertThat(program.length / 8).as("within the kernel's 4,096 instructions").isLessThan(4096);
        int arch = architecture.auditArch;
        for (SeccompFilter.Rule rule : SeccompFilter.RULES) {
            int nr = architecture.number(rule);
            if (nr < 0) {
                continue;
            }
            int refused = errno(rule.refusal().errno);
            switch (rule.when()) {
                case SeccompFilter.Condition.Always always -> assertThat(run(program, new Call(nr, arch))).as(rule.name()).isEqualTo(refused);
                case SeccompFilter.Condition.AnyBit any -> {
                    long[] with = new long[6];
                    with[any.index()] = 0755 | any.mask();
                    assertThat(run(program, new Call(nr, arch, with))).as(rule.name() + " with the bits").isEqualTo(refused);
                    long[] without = new long[6];
                    without[any.index()] = 0755 & ~any.mask();
                    assertThat(run(program, new Call(nr, arch, without))).as(rule.name() + " without").isEqualTo(SeccompFilter.RET_ALLOW);
                }
                case SeccompFilter.Condition.ValueIn in -> {
                    for (int value : in.refused()) {
                        long[] args = new long[6];
                        args[in.index()] = value;
                        assertThat(run(program, new Call(nr, arch, args))).as(rule.name() + " " + value).isEqualTo(refused);
                    }
                    long[] other = new long[6];
                    other[in.index()] = 0x5401; // TCGETS
                    assertThat(run(program, new Call(nr, arch, other))).as(rule.name() + " other").isEqualTo(SeccompFilter.RET_ALLOW);
                }
                case SeccompFilter.Condition.ValueNotIn notIn -> {
                    for (int value : notIn.allowed()) {
                        long[] args = new long[6];
                        args[notIn.index()] = value & 0xffffffffL;
                        assertThat(run(program, new Call(nr, arch, args))).as(rule.name() + " " + value).isEqualTo(SeccompFilter.RET_ALLOW);
                    }
                    long[] other = new long[6];
                    other[notIn.index()] = 38;
                    assertThat(run(program, new Call(nr, arch, other))).as(rule.name() + " 38").isEqualTo(refused);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SeccompFilter.Architecture.class)
    void whatCommandsDoIsAllowed(SeccompFilter.Architecture architecture) {
        byte[] program = SeccompFilter.of(architecture).program();
        int arch = architecture.auditArch;
        boolean x86 = architecture == SeccompFilter.Architecture.X86_64;
        List<Integer> ordinary = x86 ? List.of(0, 1, 3, 59, 60, 231, 39, 57) // read, write, close, execve, exit, exit_group, getpid, fork
                : List.of(63, 64, 57, 221, 93, 94, 172); // read, write, close, execve, exit, exit_group, getpid
        for (int nr : ordinary) {
            assertThat(run(program, new Call(nr, arch))).as("call " + nr).isEqualTo(SeccompFilter.RET_ALLOW);
        }
        int clone = x86 ? 56 : 220;
        long threadFlags = 0x3d0f00; // what pthread_create passes: CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM | SETTLS…
        assertThat(run(program, new Call(clone, arch, threadFlags))).as("a thread").isEqualTo(SeccompFilter.RET_ALLOW);
        assertThat(run(program, new Call(clone, arch, 0x11L))).as("a fork (SIGCHLD)").isEqualTo(SeccompFilter.RET_ALLOW);
        assertThat(run(program, new Call(clone, arch, 0x10000000L | 0x11))).as("a new user namespace").isEqualTo(errno(EPERM));
        int socket = x86 ? 41 : 198;
        assertThat(run(program, new Call(socket, arch, 2, 1, 0))).as("TCP").isEqualTo(SeccompFilter.RET_ALLOW);
        assertThat(run(program, new Call(socket, arch, 17, 3, 0))).as("raw packets").isEqualTo(errno(EAFNOSUPPORT));
        int openat = x86 ? 257 : 56;
        assertThat(run(program, new Call(openat, arch, -100, 0, 0101, 04755))).as("a set-uid file").isEqualTo(errno(EPERM));
        assertThat(run(program, new Call(openat, arch, -100, 0, 0101, 0644))).as("a file").isEqualTo(SeccompFilter.RET_ALLOW);
    }

    @ParameterizedTest
    @EnumSource(SeccompFilter.Architecture.class)
    void anotherArchitecturesCallsKillTheProcess(SeccompFilter.Architecture architecture) {
        byte[] program = SeccompFilter.of(architecture).program();
        int i386 = 0x40000003;
        assertThat(run(program, new Call(1, i386))).isEqualTo(SeccompFilter.RET_KILL_PROCESS);
        for (SeccompFilter.Architecture other : SeccompFilter.Architecture.values()) {
            if (other != architecture) {
                assertThat(run(program, new Call(0, other.auditArch))).isEqualTo(SeccompFilter.RET_KILL_PROCESS);
            }
        }
        if (architecture == SeccompFilter.Architecture.X86_64) {
            assertThat(run(program, new Call(0x40000000, architecture.auditArch))).as("x32").isEqualTo(SeccompFilter.RET_KILL_PROCESS);
        }
    }

    @ParameterizedTest
    @EnumSource(SeccompFilter.Architecture.class)
    void eachRefusedCallIsListedOnce(SeccompFilter.Architecture architecture) {
        List<String> names = SeccompFilter.of(architecture).refusedCalls();
        assertThat(names).doesNotHaveDuplicates().contains("mount", "unshare", "ptrace", "bpf", "io_uring_setup", "keyctl",
                "fchmodat", "clone3", "perf_event_open", "init_module");
        List<Integer> numbers = SeccompFilter.RULES.stream().map(architecture::number).filter(nr -> nr >= 0).toList();
        assertThat(numbers).doesNotHaveDuplicates();
    }
}
