package dev.skillforge.testkit;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * The test JVM's name service (registered in {@code META-INF/services}): the JDK's own, except for
 * the names a test poisons, which resolve to 127.0.0.1 like a DNS-rebinding attacker's names do.
 * Every name looked up is recorded, so a test can show that a check resolved nothing.
 */
public final class HostileDns extends InetAddressResolverProvider {

    private static final Set<String> POISONED = ConcurrentHashMap.newKeySet();
    private static final List<String> LOOKUPS = new CopyOnWriteArrayList<>();

    /** From now on, each of {@code names} (any case) resolves to 127.0.0.1. */
    public static void poison(Collection<String> names) {
        names.forEach(name -> POISONED.add(name.toLowerCase(Locale.ROOT)));
    }

    /** The names looked up so far, in order. */
    public static List<String> lookups() {
        return List.copyOf(LOOKUPS);
    }

    @Override
    public InetAddressResolver get(Configuration configuration) {
        InetAddressResolver builtin = configuration.builtinResolver();
        return new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) throws UnknownHostException {
                LOOKUPS.add(host);
                if (POISONED.contains(host.toLowerCase(Locale.ROOT))) {
                    return Stream.of(InetAddress.getByAddress(host, new byte[]{127, 0, 0, 1}));
                }
                return builtin.lookupByName(host, policy);
            }

            @Override
            public String lookupByAddress(byte[] address) throws UnknownHostException {
                return builtin.lookupByAddress(address);
            }
        };
    }

    @Override
    public String name() {
        return "hostile DNS for tests";
    }
}
