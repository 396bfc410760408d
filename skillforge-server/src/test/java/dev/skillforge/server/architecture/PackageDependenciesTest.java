package dev.skillforge.server.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.server.conversation.ConversationService;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

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
        assertThat(main.contain(ConversationService.class) && main.contain(AgentLoop.class)).as("the main classes were found").isTrue();
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
