package dev.skillforge.server.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.server.conversation.ConversationHost;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package graph of docs/design.md, enforced: dependencies point one way (no cycle between any two
 * packages), the core knows no I/O and nothing of the server, and only the composition root (the
 * package {@code dev.skillforge.server} itself) knows the provider adapters.
 */
class PackageDependenciesTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        // The compiled main classes of the core and the server (the tests run in the server module's folder).
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPaths(Path.of("target/classes"), Path.of("../skillforge-core/target/classes"));
        assertThat(main.contain(ConversationHost.class) && main.contain(AgentLoop.class)).as("the main classes were found").isTrue();
    }

    /**
     * Section 8 of docs/design.md lists every package of the server with the packages it uses; the code's
     * dependencies must be exactly those, so a reader can trust the map (an edge added in code and not on the
     * map, or one left on the map after the code stopped using it, fails here with both lists).
     */
    @Test
    void theMapInTheDesignIsTheCode() throws IOException {
        Map<String, Set<String>> documented = DesignMap.read(Files.readString(Path.of("../docs/design.md")));
        Map<String, Set<String>> actual = new TreeMap<>();
        String server = "dev.skillforge.server";
        for (JavaClass type : main) {
            String from = DesignMap.name(type.getPackageName(), documented.keySet());
            if (!type.getPackageName().startsWith(server + ".")) {
                continue; // the core has its own rule; the composition root uses every package
            }
            Set<String> uses = actual.computeIfAbsent(from, name -> new TreeSet<>());
            for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                String target = dependency.getTargetClass().getPackageName();
                if (target.startsWith("dev.skillforge.core")) {
                    uses.add("core");
                } else if (target.startsWith(server + ".")) {
                    String to = DesignMap.name(target, documented.keySet());
                    if (!to.equals(from)) {
                        uses.add(to);
                    }
                }
            }
        }
        assertThat(actual).as("docs/design.md's package map (left: the code)").isEqualTo(documented);
    }

    @Test
    void noPackageCycles() {
        slices().matching("dev.skillforge.(**)").should().beFreeOfCycles().check(main);
    }

    @Test
    void theCoreDependsOnNothingButTheJdk() {
        noClasses().that().resideInAPackage("dev.skillforge.core..")
                .should().dependOnClassesThat().resideOutsideOfPackages("dev.skillforge.core..", "java..")
                .check(main);
    }

    @Test
    void onlyTheCompositionRootKnowsTheProviderAdapters() {
        noClasses().that().resideOutsideOfPackages("dev.skillforge.server", "dev.skillforge.server.provider.openai..",
                        "dev.skillforge.server.provider.gemini..", "dev.skillforge.server.provider.anthropic..",
                        "dev.skillforge.server.provider.sim..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.skillforge.server.provider.openai..",
                        "dev.skillforge.server.provider.gemini..", "dev.skillforge.server.provider.anthropic..",
                        "dev.skillforge.server.provider.sim..")
                .check(main);
    }

    @Test
    void adaptersDoNotKnowEachOther() {
        slices().matching("dev.skillforge.server.provider.(*)..").should().notDependOnEachOther().check(main);
    }
}
