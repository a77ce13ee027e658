package dev.dht.node;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The package rules of docs/architecture.md ("Layers"), checked on the node's compiled classes. */
@AnalyzeClasses(packages = "dev.dht.node", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule httpNeverTouchesStorage = noClasses()
            .that()
            .resideInAPackage("dev.dht.node.http..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.dht.node.storage..", "org.rocksdb..")
            .because("http parses, routes and answers; what a request does to the data is api's and replication's");

    @ArchTest
    static final ArchRule storageKnowsNoSelectorLoop = noClasses()
            .that()
            .resideInAPackage("dev.dht.node.storage..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.dht.node.loop..", "dev.dht.node.http..", "one.nio..")
            .because(
                    "storage is RocksDB; it defers work through its own PassThread, which the selector loop implements");

    @ArchTest
    static final ArchRule jsonIsALeaf = noClasses()
            .that()
            .resideInAPackage("dev.dht.node.json..")
            .should()
            .dependOnClassesThat()
            .resideOutsideOfPackages("dev.dht.node.json..", "java..", "com.fasterxml.jackson..")
            .because("the one JSON layer is a library every package may use; it knows none of them");

    @ArchTest
    static final ArchRule onlyJsonUsesJackson = noClasses()
            .that()
            .resideOutsideOfPackage("dev.dht.node.json..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("com.fasterxml.jackson..")
            .because("one JSON layer: the rest of the node writes and reads records through dev.dht.node.json.Json");

    @ArchTest
    static final ArchRule noPackageCycles =
            slices().matching("dev.dht.node.(*)..").should().beFreeOfCycles();
}
